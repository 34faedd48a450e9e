import { closeSync, fdatasync, openSync } from 'node:fs';
import type Database from 'better-sqlite3';

/**
 * Makes commits durable without holding up the event loop. The connection commits with `synchronous = NORMAL`,
 * which appends to the write-ahead log without syncing it; before a write is acknowledged, `sync()` flushes the log
 * to disk on libuv's thread pool. The log is append-only between checkpoints (which SQLite syncs itself), so one
 * flush covers every commit before it: calls made while a flush runs share the next one.
 */
export interface LogSync {
  /** Resolves once every commit made before the call is on disk. */
  sync(): Promise<void>;
  /** Waits for a running flush and lets go of the log file. */
  close(): Promise<void>;
}

/** How the log file is flushed; `fs.fdatasync` unless a test watches. */
export type Flush = (fd: number, done: (error: Error | null) => void) => void;

export function createLogSync(db: Database.Database, flush: Flush = fdatasync): LogSync {
  // Only a file database in WAL mode has a log to flush; an in-memory one has nothing to keep.
  if (db.memory || db.pragma('journal_mode', { simple: true }) !== 'wal') {
    return { sync: () => Promise.resolve(), close: () => Promise.resolve() };
  }
  const logPath = `${db.name}-wal`;
  let fd: number | undefined;
  let running: Promise<void> | undefined;
  let next: Promise<void> | undefined;

  function flushNow(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      // Opened on first use: SQLite creates the log with the first write and keeps it while the connection lives,
      // so before that there is nothing to flush.
      fd ??= openLog();
      if (fd === undefined) resolve();
      else flush(fd, (error) => (error === null ? resolve() : reject(error)));
    }).finally(() => {
      running = undefined;
    });
  }

  function openLog(): number | undefined {
    try {
      return openSync(logPath, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  function sync(): Promise<void> {
    if (running === undefined) return (running = flushNow());
    // A flush already running may have started before the caller's commit: wait for it, then flush once more for
    // everyone who asked in the meantime.
    next ??= running
      .catch(() => undefined)
      .then(() => {
        next = undefined;
        return (running = flushNow());
      });
    return next;
  }

  return {
    sync,
    async close() {
      await Promise.allSettled([running, next]);
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}
