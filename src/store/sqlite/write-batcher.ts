import type Database from 'better-sqlite3';
import { storeError } from './store-error.ts';

/**
 * Writes asked for in the same turn of the event loop, committed in one transaction. With many executions in
 * flight their changes arrive together, and one commit writes the pages they share (the tail of the event log,
 * the index of states) once instead of once each. Every write still resolves only after its commit.
 */
export interface WriteBatcher {
  /** Runs `work` in a write transaction, possibly with other writes of this turn; resolves once committed. */
  write<T>(work: () => T): Promise<T>;
  /** Commits what is waiting now; before the connection closes. */
  flush(): void;
}

interface Waiting {
  readonly work: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export function createWriteBatcher(db: Database.Database): WriteBatcher {
  const runAll = db.transaction((works: readonly (() => unknown)[]) => works.map((work) => work()));
  const runOne = db.transaction((work: () => unknown) => work());
  let waiting: Waiting[] = [];
  let scheduled: NodeJS.Immediate | undefined;

  function flush(): void {
    clearImmediate(scheduled);
    scheduled = undefined;
    const batch = waiting;
    waiting = [];
    if (batch.length === 0) return;
    let results: unknown[];
    try {
      results = runAll.immediate(batch.map((entry) => entry.work));
    } catch (error) {
      if (batch.length === 1 || storeError(error) !== error) {
        // One write, or a database another process holds: the same answer for each.
        for (const entry of batch) entry.reject(storeError(error));
        return;
      }
      // One write failed and rolled back the others: each on its own, so only that one fails.
      for (const entry of batch) {
        try {
          entry.resolve(runOne.immediate(entry.work));
        } catch (own) {
          entry.reject(storeError(own));
        }
      }
      return;
    }
    batch.forEach((entry, index) => entry.resolve(results[index]));
  }

  return {
    write<T>(work: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        waiting.push({ work, resolve: resolve as (value: unknown) => void, reject });
        scheduled ??= setImmediate(flush);
      });
    },
    flush,
  };
}
