/**
 * A long-lived part of a process (the store, the change feed, the HTTP listener, the webhook worker, the claims):
 * it takes hold of something at `start` and lets go of it at `stop`. A ProcessLifecycle starts parts in order and
 * stops them in reverse order.
 */
export interface Lifecycle {
  /** What messages call the part: `the store`, `the HTTP listener`. */
  readonly name: string;
  /** Takes hold of what the part needs. When it rejects, the part has let go of whatever it took. */
  start(): Promise<void>;
  /**
   * The first step of a shutdown, for parts that take work (requests, executions): refuse new work now, without
   * waiting for anything. Called on every started part, newest first, before any part's `stop`.
   */
  stopTakingWork?(): void;
  /** Finishes or ends the part's work and lets go of what `start` took. Called once, only after `start` resolved. */
  stop(): Promise<void>;
}
