import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export interface CheckpointWorkerOptions {
  /** How often the worker copies committed pages from the WAL into the database file. */
  readonly intervalMs: number;
  readonly busyTimeoutMs: number;
}

/**
 * Plain JavaScript run by `eval`, so the worker needs no TypeScript loader and runs the same from the sources and
 * from the build. It holds no transaction between checkpoints, so a writer can start the WAL over once a checkpoint
 * has copied all of it. Its connection keeps `synchronous = NORMAL`, under which a checkpoint syncs the WAL before
 * copying and the database file after.
 */
const source = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { timeout: workerData.busyTimeoutMs });
db.pragma('synchronous = NORMAL');
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // A full, read-only or busy disk: the pages stay in the WAL, and the next checkpoint tries again.
  }
}, workerData.intervalMs);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Starts a thread with its own connection to the SQLite file at `path` that checkpoints the WAL periodically, so the
 * fsyncs a checkpoint makes happen off the main thread. Posting it any message makes it close its connection and
 * exit. It does not keep the process alive.
 */
export function spawnCheckpointWorker(path: string, options: CheckpointWorkerOptions): Worker {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(source, { eval: true, execArgv: [], workerData: { driver, path, ...options } });
  worker.unref();
  return worker;
}
