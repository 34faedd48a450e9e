import type { ChangeListener } from '../store/coordination-feed.ts';
import type { EventHub } from './event-hub.ts';
import type { ExecutionClaims } from './execution-claims.ts';
import type { ExecutionRunner } from './execution-runner.ts';

export interface CrossProcessDeps {
  readonly events: EventHub;
  readonly runner: ExecutionRunner;
  readonly claims: ExecutionClaims;
  readonly clock: () => Date;
  /** Claims on every execution that stops running elsewhere too: under a limit per token, its token may go on. */
  readonly wakeOnEnds?: boolean;
  /** How long after its commit on the database's clock a notice arrived here, in seconds. */
  readonly onNoticeLag?: (seconds: number) => void;
}

/**
 * What this process does when another process commits a change: streams of that execution read it at once, a run
 * here that was cancelled or taken over there stops, and work left unleased (new, resumed or released) is claimed.
 * After notices may have been lost, everything is looked at again.
 */
export function followOtherProcesses(deps: CrossProcessDeps): ChangeListener {
  return {
    changed(notice) {
      deps.onNoticeLag?.(Math.max(0, deps.clock().getTime() - notice.committedAt.getTime()) / 1000);
      deps.events.nudge(notice.executionId);
      deps.runner.noticed(notice);
      const runnable = notice.state === 'PENDING' || notice.state === 'RUNNING';
      if (runnable && notice.leaseOwner === null) deps.claims.wake();
      else if (deps.wakeOnEnds === true && !runnable) deps.claims.wake();
    },
    resync() {
      deps.events.nudge();
      deps.claims.wake();
    },
  };
}
