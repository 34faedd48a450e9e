import type { Execution } from '../domain/execution.ts';
import type { TokenUsage } from '../domain/usage.ts';
import type { JournalEntry, StepJournal } from '../engine/step-journal.ts';
import type { EventStore, StoredExecutionEvent } from '../store/store.ts';

const pageSize = 500;

/**
 * The completed steps of the task attempt an execution was in when its last process stopped, read back from its
 * event log: the model answers and tool results saved since that attempt started (across earlier restarts of the
 * same attempt too). Undefined when no task was in flight.
 */
export async function readStepJournal(
  store: EventStore,
  execution: Execution,
): Promise<StepJournal | undefined> {
  if (execution.currentTask === null) return undefined;
  if (execution.state !== 'RUNNING' && !resumedFromBudgetPause(execution)) return undefined;
  let journal: { taskId: string; attempt: number; entries: JournalEntry[] } | undefined;
  for (let after = 0; ;) {
    const page = await store.listEvents(execution.id, after, pageSize);
    for (const event of page) journal = follow(journal, event);
    if (page.length < pageSize) break;
    after = page.at(-1)!.sequence;
  }
  return journal?.taskId === execution.currentTask ? journal : undefined;
}

/** True for an execution waiting to go on after its budget was extended: its task was stopped between steps. */
export function resumedFromBudgetPause(execution: Execution): boolean {
  return execution.state === 'PENDING' && execution.feedback.at(-1)?.budget !== undefined;
}

type OpenJournal = { taskId: string; attempt: number; entries: JournalEntry[] } | undefined;

/** The journal of the task attempt open after `event`, given the one open before it (undefined: none). */
export function follow(journal: OpenJournal, event: StoredExecutionEvent): OpenJournal {
  const { type, data } = event;
  switch (type) {
    case 'task-start': {
      // The same attempt started again after a restart keeps what it had.
      if (journal?.taskId === data.task_id && journal.attempt === data.attempt) return journal;
      return { taskId: data.task_id, attempt: data.attempt, entries: [] };
    }
    case 'model-call-end': {
      if (journal === undefined) return journal;
      journal.entries.push({
        kind: 'model',
        answer: { text: data.text, toolCalls: data.tool_calls },
        usage: callUsage(data),
        ...(data.scope === undefined ? {} : { scope: data.scope }),
      });
      return journal;
    }
    case 'step-end':
      if (journal !== undefined && data.tool_call_id !== undefined) {
        journal.entries.push({ kind: 'tool', toolCallId: data.tool_call_id, result: data.result });
      }
      return journal;
    case 'guardrail-end':
      journal?.entries.push({ kind: 'guardrail' });
      return journal;
    // A budget pause and its approval stop the attempt between two steps: it goes on from them.
    case 'human-input-request':
      return data.budget === undefined ? undefined : journal;
    case 'execution-resume':
      return data.kind === 'budget' ? journal : undefined;
    case 'task-end':
      return undefined;
    case 'method-start':
    case 'method-end':
    case 'method-fail':
      return undefined;
    case 'execution-start':
    case 'guardrail-start':
    case 'execution-end':
      return journal;
  }
}

/** The usage of the one model call a `model-call-end` event records. */
export function callUsage(
  data: Extract<StoredExecutionEvent, { type: 'model-call-end' }>['data'],
): TokenUsage {
  const { usage } = data;
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    totalTokens: usage.total_tokens,
    successfulRequests: 1,
    ...(usage.cost_usd === undefined ? {} : { costUsd: usage.cost_usd }),
    ...(usage.unpriced === true ? { unpricedRequests: 1 } : {}),
  };
}
