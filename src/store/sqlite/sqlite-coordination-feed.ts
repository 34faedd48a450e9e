import type { CoordinationFeed } from '../coordination-feed.ts';
import type { ProcessLocks } from './process-locks.ts';

/**
 * The feed of a SQLite store: it tells nothing (other processes sharing the file are found by the periodic claim),
 * but holds this process's liveness lock from `start` to `close`, as PostgreSQL's feed connection does.
 */
export function sqliteCoordinationFeed(locks: ProcessLocks, processId: string): CoordinationFeed {
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
