import type { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/** SQLite's default: the commit that leaves this many pages in the WAL checkpoints it, blocking its thread on fsync. */
const checkpointOnCommitPages = 1000;

/**
 * While the worker runs, the commit that leaves this many pages (4 KiB each) in the WAL still checkpoints it. SQLite
 * starts the WAL over only once a checkpoint has caught up with the last commit, which the worker's checkpoints,
 * running beside the writes, never do under sustained writing; this bounds the WAL then. As the worker has already
 * copied all but the latest pages, such a checkpoint is short.
 */
const catchUpCheckpointPages = 10_000;

export interface WalCheckpointer {
  /** Stops the worker, waits for it to exit and hands checkpoints back to the connection's commits. */
  stop(): Promise<void>;
}

/**
 * Leaves the checkpoints that `db` would run inside its commits to `worker`, which checkpoints the same file from
 * another thread. Should the worker fail or exit on its own, commits checkpoint as by default again and `onError`
 * hears why.
 */
export function superviseCheckpointWorker(
  db: Database.Database,
  worker: Worker,
  onError: (error: Error) => void,
): WalCheckpointer {
  const checkpointOnCommit = (pages: number): void => {
    if (db.open) db.pragma(`wal_autocheckpoint = ${pages}`);
  };
  checkpointOnCommit(catchUpCheckpointPages);
  let stopping = false;
  let failure: unknown;
  worker.once('error', (error) => {
    failure = error;
  });
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', (code) => {
      resolve();
      if (stopping && failure === undefined) return;
      checkpointOnCommit(checkpointOnCommitPages);
      onError(
        new Error(`The SQLite checkpoint worker exited with code ${code}; commits checkpoint the WAL again`, {
          cause: failure,
        }),
      );
    });
  });
  return {
    async stop() {
      stopping = true;
      // Keeps the process alive until the worker has closed its connection, as a caller awaiting this expects.
      worker.ref();
      worker.postMessage('stop');
      await exited;
      checkpointOnCommit(checkpointOnCommitPages);
    },
  };
}
