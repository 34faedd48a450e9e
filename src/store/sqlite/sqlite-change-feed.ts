import type { ChangeFeed } from '../change-feed.ts';
import type { ProcessLocks } from './process-locks.ts';

/**
 * The feed of a SQLite store: it tells nothing (other processes sharing the file are found by the periodic claim),
 * but holds this process's liveness lock from `start` to `close`, as PostgreSQL's feed connection does.
 */
export function sqliteChangeFeed(locks: ProcessLocks, processId: string): ChangeFeed {
  let release: (() => void) | undefined;
  return {
    start: async () => {
      release ??= locks.hold(processId);
      await Promise.resolve();
    },
    connected: true,
    close: async () => {
      release?.();
      release = undefined;
      await Promise.resolve();
    },
  };
}
