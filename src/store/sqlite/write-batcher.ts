import type Database from 'better-sqlite3';
import { storeError } from './store-error.ts';

/**
 * Writes asked for in the same turn of the event loop, committed in one transaction. With many executions in
 * flight their changes arrive together, and one commit writes the pages they share (the tail of the event log,
 * the index of states) once instead of once each. Every write resolves only after its commit is on disk.
 */
export interface WriteBatcher {
  /** Runs `work` in a write transaction, possibly with other writes of this turn; resolves once durable. */
  write<T>(work: () => T): Promise<T>;
  /** Commits what is waiting now, and resolves once that and every earlier commit is on disk. */
  flush(): Promise<void>;
}

interface Waiting {
  readonly work: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

type Outcome =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

/**
 * `sync` resolves once every commit made before the call is on disk (see log-sync.ts); it runs off the event loop,
 * so the next turn's writes commit while this turn's are being flushed.
 */
export function createWriteBatcher(db: Database.Database, sync: () => Promise<void>): WriteBatcher {
  const runAll = db.transaction((works: readonly (() => unknown)[]) => works.map((work) => work()));
  const runOne = db.transaction((work: () => unknown) => work());
  let waiting: Waiting[] = [];
  let scheduled: NodeJS.Immediate | undefined;

  function commit(batch: readonly Waiting[]): Outcome[] {
    try {
      return runAll.immediate(batch.map((entry) => entry.work)).map((value) => ({ ok: true, value }));
    } catch (error) {
      // One write, or a database another process holds: the same answer for each.
      if (batch.length === 1 || storeError(error) !== error) return batch.map(() => ({ ok: false, error }));
      // One write failed and rolled back the others: each on its own, so only that one fails.
      return batch.map((entry) => {
        try {
          return { ok: true, value: runOne.immediate(entry.work) };
        } catch (own) {
          return { ok: false, error: own };
        }
      });
    }
  }

  function commitWaiting(): Promise<void> {
    clearImmediate(scheduled);
    scheduled = undefined;
    const batch = waiting;
    waiting = [];
    if (batch.length === 0) return sync();
    const outcomes = commit(batch);
    const synced = outcomes.some((outcome) => outcome.ok) ? sync() : Promise.resolve();
    return synced.then(
      () => {
        outcomes.forEach((outcome, index) => {
          if (outcome.ok) batch[index]!.resolve(outcome.value);
          else batch[index]!.reject(storeError(outcome.error));
        });
      },
      (error: unknown) => {
        for (const entry of batch) entry.reject(storeError(error));
      },
    );
  }

  return {
    write<T>(work: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        waiting.push({ work, resolve: resolve as (value: unknown) => void, reject });
        scheduled ??= setImmediate(() => void commitWaiting());
      });
    },
    flush: commitWaiting,
  };
}
