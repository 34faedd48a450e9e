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
 * Cross-process wake-ups, and this process's liveness lock from `start` to `close`: while it is held, other processes
 * leave this process's leases alone; once it is gone (a kill -9 included) they take them over at once. The
 * PostgreSQL feed listens on a connection of its own, which holds the lock as a session advisory lock; every write
 * notifies in the statement that commits it. The SQLite feed tells nothing (a SQLite database serves one machine,
 * where changes made in this process are published in process, and other processes sharing the file are found by
 * the periodic claim); it holds the lock as a file lock beside the database.
 */
export interface CoordinationFeed {
  /** Starts listening; resolves once notices flow (a first connection that fails is retried in the background). */
  start(listener: ChangeListener): Promise<void>;
  /** False while notices may be missed: callers fall back to polling the store. */
  readonly connected: boolean;
  close(): Promise<void>;
}
