import type { Execution } from '../../domain/execution.ts';
import type { ExecutionChange } from '../store.ts';

/** A change, with the execution as its caller knows it when it has that copy (see `Store.applyChange`). */
export interface KnownChange {
  readonly change: ExecutionChange;
  readonly known?: Execution | undefined;
}

/** Applies changes to different executions in one statement; resolves with each one's row, or null where its guard failed. */
export type ApplyChanges = (changes: readonly KnownChange[]) => Promise<(Execution | null)[]>;

export interface ChangeBatcher {
  apply(change: ExecutionChange, known?: Execution): Promise<Execution | null>;
}

interface Waiting extends KnownChange {
  readonly resolve: (execution: Execution | null) => void;
  readonly reject: (error: unknown) => void;
}

/** The most changes one statement carries. */
const maxBatch = 64;

/**
 * Changes asked for in the same turn of the event loop go to PostgreSQL together: one round trip and one commit
 * for many executions in flight. A batch holds at most one change per execution, so each change is judged against
 * the row as the change before it left it; a second change to the same execution waits for the next batch. When a
 * batch fails, its changes are tried one by one, so only a change that fails on its own is answered with an error.
 */
export function createChangeBatcher(applyChanges: ApplyChanges): ChangeBatcher {
  let waiting: Waiting[] = [];
  let scheduled = false;

  function schedule(): void {
    if (scheduled || waiting.length === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      void send(takeBatch());
      schedule();
    });
  }

  function takeBatch(): Waiting[] {
    const batch: Waiting[] = [];
    const rest: Waiting[] = [];
    const executions = new Set<string>();
    for (const entry of waiting) {
      if (batch.length < maxBatch && !executions.has(entry.change.executionId)) {
        executions.add(entry.change.executionId);
        batch.push(entry);
      } else {
        rest.push(entry);
      }
    }
    waiting = rest;
    return batch;
  }

  async function send(batch: readonly Waiting[]): Promise<void> {
    try {
      const applied = await applyChanges(batch);
      batch.forEach((entry, index) => entry.resolve(applied[index] ?? null));
      return;
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
    }
    for (const entry of batch) {
      try {
        const [applied] = await applyChanges([entry]);
        entry.resolve(applied ?? null);
      } catch (error) {
        entry.reject(error);
      }
    }
  }

  return {
    apply(change, known) {
      return new Promise((resolve, reject) => {
        waiting.push({ change, known, resolve, reject });
        schedule();
      });
    },
  };
}
