import type { Execution } from '../domain/execution.ts';
import type { Checkpoint } from '../engine/run-request.ts';
import type { TaskOutput } from '../domain/task-output.ts';
import { emptyUsage } from '../domain/usage.ts';
import type { EventStore } from '../store/store.ts';
import { follow, resumedFromBudgetPause } from './read-step-journal.ts';

const pageSize = 500;

/** The flow method that was in flight, and where its crew stood. */
export interface FlowCheckpoint {
  readonly method: string;
  readonly checkpoint: Checkpoint;
}

/**
 * What the crew of the flow method in flight did before its last process stopped (or a budget pause stopped it,
 * now approved), read back from the execution's event log: the tasks that ended since the method's last start, and
 * the completed steps of the task attempt open then. Undefined when no method was in flight. Methods running side
 * by side write their crews' events into one log; only the method the execution names as current is read back
 * (the others run again from their start).
 */
export async function readFlowCheckpoint(
  store: EventStore,
  execution: Execution,
): Promise<FlowCheckpoint | undefined> {
  const method = execution.currentTask;
  if (method === null) return undefined;
  if (execution.state !== 'RUNNING' && !resumedFromBudgetPause(execution)) return undefined;
  let inFlight = false;
  let outputs: TaskOutput[] = [];
  let journal: ReturnType<typeof follow>;
  for (let after = 0; ;) {
    const page = await store.listEvents(execution.id, after, pageSize);
    for (const event of page) {
      if (event.type === 'method-start' && event.data.method === method) {
        // Started again after an earlier crash, it keeps what it had; a fresh start (a cycle) begins anew.
        if (!inFlight) {
          outputs = [];
          journal = undefined;
        }
        inFlight = true;
        continue;
      }
      if (event.type === 'method-end' && event.data.method === method) inFlight = false;
      if (!inFlight) continue;
      if (event.type === 'task-end') {
        const { data } = event;
        outputs.push({
          taskId: data.task_id,
          description: data.description,
          expectedOutput: data.expected_output,
          summary: data.summary,
          agent: data.agent,
          output: data.output,
          outputJson: data.output_json,
          // Counted in the execution's usage when the task ended.
          usage: emptyUsage,
          attempt: data.attempt,
        });
      }
      journal = follow(journal, event);
    }
    if (page.length < pageSize) break;
    after = page.at(-1)!.sequence;
  }
  if (!inFlight) return undefined;
  return {
    method,
    checkpoint: { outputs, feedback: [], ...(journal === undefined ? {} : { journal }) },
  };
}
