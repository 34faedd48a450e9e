import type { ExecutionState } from '../domain/execution.ts';

/** What another process committed to one execution, as its notification tells it. */
export interface ExecutionNotice {
  readonly executionId: string;
  readonly state: ExecutionState;
  /** The process that holds the execution's lease after the change, or null. */
  readonly leaseOwner: string | null;
  readonly revision: number;
  /** When the database ran the statement, on its clock (notification lag). */
  readonly committedAt: Date;
}

export interface ChangeListener {
  /** Another process committed a change to this execution. */
  changed(notice: ExecutionNotice): void;
  /** Notices may have been missed (the connection was lost and is back): look at the store again. */
  resync(): void;
}

/**
 * Cross-process wake-ups. The PostgreSQL feed listens on a connection of its own, which also holds this process's
 * liveness lock for as long as the process lives; every write notifies in the statement that commits it. The
 * SQLite feed tells nothing: a SQLite database serves one machine, where changes made in this process are published
 * in process, and other processes sharing the file are found by the periodic claim.
 */
export interface ChangeFeed {
  /** Starts listening; resolves once notices flow (a first connection that fails is retried in the background). */
  start(listener: ChangeListener): Promise<void>;
  /** False while notices may be missed: callers fall back to polling the store. */
  readonly connected: boolean;
  close(): Promise<void>;
}

/** The feed of a store that only this process writes to through notices: nothing arrives, nothing is missed. */
export const quietChangeFeed: ChangeFeed = {
  start: () => Promise.resolve(),
  connected: true,
  close: () => Promise.resolve(),
};
