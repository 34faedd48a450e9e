import type { ExecutionLogEvent } from '../domain/execution-log.ts';

/**
 * One line for people about an execution event, as `crewd serve` prints them on a terminal; nothing for a model
 * call or the start of a guardrail check, since the events that follow them say what came of them.
 */
export function eventLine(executionId: string, event: ExecutionLogEvent, at: Date): string {
  const text = describe(event);
  if (text === '') return '';
  const time = at.toISOString().slice(11, 19);
  return `${time} ${executionId.slice(0, 8)} ${text}\n`;
}

function describe(event: ExecutionLogEvent): string {
  switch (event.type) {
    case 'model-call-end':
    case 'guardrail-start':
      return '';
    case 'execution-start':
      return 'started';
    case 'task-start': {
      const { task_id, agent, attempt } = event.data;
      return `${task_id}: started by ${agent}${attempt > 1 ? ` (attempt ${attempt})` : ''}`;
    }
    case 'step-end':
      return event.data.tool === null
        ? `${event.data.task_id}: final answer`
        : `${event.data.task_id}: used ${event.data.tool}`;
    case 'guardrail-end':
      return `${event.data.task_id}: guardrail ${event.data.success ? 'passed' : `failed: ${String(event.data.error)}`}`;
    case 'task-end':
      return `${event.data.task_id}: done`;
    case 'human-input-request':
      return `${event.data.task_id}: waiting for review`;
    case 'execution-resume':
      return `${event.data.task_id}: ${event.data.is_approve ? 'approved' : 'sent back'}${
        event.data.given_by === 'deadline' ? ' (its review deadline passed)' : ''
      }`;
    case 'method-start':
      return `${event.data.method}: started`;
    case 'method-end':
      return `${event.data.method}: done`;
    case 'method-fail':
      return `${event.data.method}: failed: ${event.data.error}`;
    case 'execution-end': {
      const error = event.data.error === null ? '' : `: ${event.data.error}`;
      return `${event.data.state}${error}`;
    }
  }
}
