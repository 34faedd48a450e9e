import { CrewdError, isCrewdError } from '../domain/errors.ts';
import type { Schedule } from '../domain/schedule.ts';
import type { ScheduleStore } from '../store/schedule-store.ts';
import type { ExecutionService } from './execution-service.ts';
import { scheduledKickoff } from './scheduled-kickoff.ts';
import { cronTimes, type CronTimes } from './schedule-times.ts';

/** What one pass did with a schedule's tick, for logs and tests. */
export type TickOutcome =
  | {
      readonly kind: 'started';
      readonly schedule: Schedule;
      readonly dueAt: Date;
      readonly late: boolean;
      readonly kickoffId: string;
    }
  /** Another process started this tick first. */
  | { readonly kind: 'started elsewhere'; readonly schedule: Schedule; readonly dueAt: Date }
  /** The crew refused the kickoff (its inputs changed, say); the tick is not tried again. */
  | { readonly kind: 'refused'; readonly schedule: Schedule; readonly dueAt: Date; readonly error: unknown };

export interface SchedulerDeps {
  readonly store: ScheduleStore;
  readonly executions: Pick<ExecutionService, 'kickoff'>;
  readonly crew: string;
  readonly clock: () => Date;
  /** The ids of the tokens that still work, read once a pass: a revoked token's schedules start nothing. */
  readonly activeTokenIds: () => Promise<ReadonlySet<string>>;
  readonly onTick: (outcome: TickOutcome) => void;
  readonly onError: (error: unknown) => void;
  /** How often schedules are looked at, in real time; the clock decides what is due (default 1 s). */
  readonly pollMs?: number;
}

/** Ticks started together in one pass: enough to share commits, few enough to leave room for requests. */
const startsAtOnce = 50;

/** A tick started this long after its due time is reported as late. */
export const lateAfterMs = 60_000;

/**
 * Starts each schedule's ticks as they fall due. Every process runs one; the store makes each tick one execution
 * (see scheduledKickoff), so processes need not agree on who fires. After a stop, only the latest missed tick
 * starts, late and saying so; older missed ticks are skipped.
 */
export class Scheduler {
  readonly #deps: SchedulerDeps;
  #timer: NodeJS.Timeout | undefined;
  #pass: Promise<void> | undefined;
  /** Parsed expressions by time zone and expression: many schedules share a few. */
  readonly #times = new Map<string, CronTimes>();

  constructor(deps: SchedulerDeps) {
    this.#deps = deps;
  }

  start(): void {
    const poll = (): void => {
      this.#pass ??= this.runDue()
        .then(() => undefined, this.#deps.onError)
        .finally(() => {
          this.#pass = undefined;
        });
    };
    poll();
    this.#timer = setInterval(poll, this.#deps.pollMs ?? 1000).unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#pass;
  }

  /** One look at every schedule: starts the tick each has due now, if any, several at a time. */
  async runDue(): Promise<readonly TickOutcome[]> {
    const now = this.#deps.clock();
    const due = (await this.#deps.store.listSchedules(this.#deps.crew)).flatMap((schedule) => {
      const dueAt = this.#dueTick(schedule, now);
      return dueAt === null ? [] : [{ schedule, dueAt }];
    });
    const outcomes: TickOutcome[] = [];
    if (due.length === 0) return outcomes;
    const active = await this.#deps.activeTokenIds();
    for (let index = 0; index < due.length; index += startsAtOnce) {
      const batch = due.slice(index, index + startsAtOnce);
      const started = await Promise.all(
        batch.map(({ schedule, dueAt }) => this.#tick(schedule, dueAt, now, active)),
      );
      outcomes.push(...started.filter((outcome) => outcome !== null));
    }
    return outcomes;
  }

  async #tick(
    schedule: Schedule,
    dueAt: Date,
    now: Date,
    active: ReadonlySet<string>,
  ): Promise<TickOutcome | null> {
    // A paused schedule's ticks pass unstarted, so resuming it does not start the one it missed.
    if (schedule.paused) {
      await this.#deps.store.markScheduleDue(schedule.id, dueAt);
      return null;
    }
    const outcome = active.has(schedule.owner.tokenId)
      ? await this.#start(schedule, dueAt, now)
      : {
          kind: 'refused' as const,
          schedule,
          dueAt,
          error: new CrewdError('UNAUTHORIZED', 'The token that made this schedule was revoked'),
        };
    // Marked whatever the outcome: a tick the crew refuses is reported once, not tried again each second.
    await this.#deps.store.markScheduleDue(schedule.id, dueAt);
    this.#deps.onTick(outcome);
    return outcome;
  }

  /** The latest tick after the one last started (or after the schedule was made), up to now. */
  #dueTick(schedule: Schedule, now: Date): Date | null {
    const key = `${schedule.timezone} ${schedule.cron}`;
    let times = this.#times.get(key);
    if (times === undefined) {
      try {
        times = cronTimes(schedule.cron, schedule.timezone);
      } catch {
        // Checked when the schedule was made; a time zone a later runtime no longer knows stops only this one.
        return null;
      }
      if (this.#times.size >= 10_000) this.#times.clear();
      this.#times.set(key, times);
    }
    return times.latestDue(schedule.lastDueAt ?? schedule.createdAt, now);
  }

  async #start(schedule: Schedule, dueAt: Date, now: Date): Promise<TickOutcome> {
    const late = now.getTime() - dueAt.getTime() > lateAfterMs;
    try {
      const { kickoffId } = await this.#deps.executions.kickoff(
        scheduledKickoff(schedule, { dueAt, late, runNow: false }),
      );
      return { kind: 'started', schedule, dueAt, late, kickoffId };
    } catch (error) {
      // Another process started this tick first and judged its lateness otherwise: the request differs, the key not.
      if (isCrewdError(error) && error.code === 'IDEMPOTENCY_CONFLICT') {
        return { kind: 'started elsewhere', schedule, dueAt };
      }
      if (isCrewdError(error) && !error.retryable && error.code !== 'DEPENDENCY_UNAVAILABLE') {
        return { kind: 'refused', schedule, dueAt, error };
      }
      throw error;
    }
  }
}
