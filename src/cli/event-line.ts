import type { NewExecutionEvent } from '../store/store.ts';

/**
 * One line for people about an execution event, as `crewd serve` prints them on a terminal; nothing for a model
 * call or the start of a guardrail check, since the events that follow them say what came of them.
 */
export function eventLine(executionId: string, event: NewExecutionEvent, at: Date): string {
  if (event.type === 'model-call-end' || event.type === 'guardrail-start') return '';
  const data = event.data;
  const task = typeof data.task_id === 'string' ? data.task_id : '';
  const time = at.toISOString().slice(11, 19);
  const text = describe(event.type, data, task);
  return `${time} ${executionId.slice(0, 8)} ${text}\n`;
}

function describe(type: string, data: Readonly<Record<string, unknown>>, task: string): string {
  switch (type) {
    case 'execution-start':
      return 'started';
    case 'task-start':
      return `${task}: started by ${String(data.agent)}${Number(data.attempt) > 1 ? ` (attempt ${String(data.attempt)})` : ''}`;
    case 'step-end':
      return typeof data.tool === 'string' ? `${task}: used ${data.tool}` : `${task}: final answer`;
    case 'guardrail-end':
      return `${task}: guardrail ${data.success === true ? 'passed' : `failed: ${String(data.error)}`}`;
    case 'task-end':
      return `${task}: done`;
    case 'human-input-request':
      return `${task}: waiting for review`;
    case 'execution-resume':
      return `${task}: ${data.is_approve === true ? 'approved' : 'sent back'}`;
    case 'execution-end': {
      const error = typeof data.error === 'string' ? `: ${data.error}` : '';
      return `${String(data.state)}${error}`;
    }
    default:
      return type;
  }
}
