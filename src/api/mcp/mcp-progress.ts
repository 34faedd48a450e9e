import type { CrewDefinition } from '../../domain/crew.ts';
import type { Execution } from '../../domain/execution.ts';
import { whereExecutionStands } from '../../engine/execution-standing.ts';
import type { StoredExecutionEvent } from '../../store/store.ts';

/** One MCP progress notification's fields (besides the token). */
export interface ProgressUpdate {
  readonly progress: number;
  readonly total?: number;
  readonly message: string;
}

export interface ExecutionProgress {
  /** Where the execution stands when the wait begins. */
  readonly started: (execution: Execution) => void;
  readonly onEvent: (event: StoredExecutionEvent) => void;
}

/**
 * Turns an execution's events into progress counted in tasks: a task that starts is half done, one that ends is done.
 * MCP asks that progress only ever increase, so a task run again (a rejected review, a retry) sends nothing until
 * the count moves past what was already said.
 */
export function executionProgress(
  crew: CrewDefinition,
  send: (update: ProgressUpdate) => void,
): ExecutionProgress {
  const total = crew.tasks.length;
  let said = -1;
  const report = (progress: number, message: string): void => {
    if (progress <= said) return;
    said = progress;
    send(total > 0 ? { progress, total, message } : { progress, message });
  };
  const place = (taskId: string): number => crew.tasks.findIndex((task) => task.name === taskId);
  return {
    started(execution) {
      const { completed } = whereExecutionStands(crew, execution);
      report(completed, `Execution ${execution.id} is ${execution.state}`);
    },
    onEvent(event) {
      if (event.type === 'task-start') {
        const index = place(event.data.task_id);
        if (index >= 0) report(index + 0.5, `Task ${event.data.task_id} started (${index + 1} of ${total})`);
      } else if (event.type === 'task-end') {
        const index = place(event.data.task_id);
        if (index >= 0) report(index + 1, `Task ${event.data.task_id} finished (${index + 1} of ${total})`);
      }
    },
  };
}
