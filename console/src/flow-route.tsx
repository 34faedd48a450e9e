import { isFinished } from './api-types.ts';
import type { ExecutionDetail } from './api-types.ts';
import { JsonTree } from './json-tree.tsx';

/** What a flow execution's page shows instead of tasks: the methods it ran, the one it is on, its state. */
export interface FlowProgress {
  readonly completed: readonly string[];
  /** The method running now, or waiting for a review; null once the flow has ended or before it starts. */
  readonly current: string | null;
  readonly waiting: boolean;
  readonly state: Readonly<Record<string, unknown>>;
}

/** A flow execution's progress, or null for a crew's: only a flow's status carries `flow_methods`. */
export function flowProgressOf(detail: ExecutionDetail): FlowProgress | null {
  if (detail.flow_methods === undefined) return null;
  const current = detail.current_task;
  return {
    completed: detail.flow_methods,
    // A finished flow is on no method; a method may run again in a loop, so the name alone does not tell.
    current: isFinished(detail.state) ? null : current,
    waiting: detail.pending_human_input !== null && detail.pending_human_input.task_id === current,
    state: detail.flow_state ?? {},
  };
}

/**
 * The route a flow took, method by method in the order they ran, then the method it is on (running, or waiting
 * for a review), and the flow's state as its methods left it.
 */
export function FlowRoute({ progress }: { progress: FlowProgress }) {
  const nothingYet = progress.completed.length === 0 && progress.current === null;
  return (
    <section aria-labelledby="methods-title">
      <h2 id="methods-title">Methods</h2>
      {nothingYet ? (
        <p class="muted">No method has started yet.</p>
      ) : (
        <ol class="route" aria-label="Route taken">
          {progress.completed.map((method, index) => (
            <li key={`${index}-${method}`} class="method done" aria-label={`${method}: done`}>
              <span class="mono">{method}</span> <span class="muted">done</span>
            </li>
          ))}
          {progress.current === null ? null : (
            <li
              class="method current"
              aria-current="step"
              aria-label={`${progress.current}: ${progress.waiting ? 'waiting for review' : 'running'}`}
            >
              <span class="mono">{progress.current}</span>{' '}
              <span class="muted">{progress.waiting ? 'waiting for review' : 'running'}</span>
            </li>
          )}
        </ol>
      )}
      <details class="box" open>
        <summary>Flow state</summary>
        <JsonTree value={progress.state} label="state" />
      </details>
    </section>
  );
}
