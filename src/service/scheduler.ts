import { CrewdError, isCrewdError } from '../domain/errors.ts';
import type { Schedule } from '../domain/schedule.ts';
import type { ScheduleStore } from '../store/schedule-store.ts';
import type { ExecutionService } from './execution-service.ts';
import { scheduledKickoff } from './scheduled-kickoff.ts';
import { cronTimes } from './schedule-times.ts';

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
  /** Whether the token a schedule was made with still works: a revoked token's schedules start nothing. */
  readonly tokenActive: (tokenId: string) => Promise<boolean>;
  readonly onTick: (outcome: TickOutcome) => void;
  readonly onError: (error: unknown) => void;
  /** How often schedules are looked at, in real time; the clock decides what is due (default 1 s). */
  readonly pollMs?: number;
}

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

  /** One look at every schedule: starts the tick each has due now, if any. */
  async runDue(): Promise<readonly TickOutcome[]> {
    const now = this.#deps.clock();
    const outcomes: TickOutcome[] = [];
    for (const schedule of await this.#deps.store.listSchedules(this.#deps.crew)) {
      const dueAt = dueTick(schedule, now);
      if (dueAt === null) continue;
      // A paused schedule's ticks pass unstarted, so resuming it does not start the one it missed.
      if (schedule.paused) {
        await this.#deps.store.markScheduleDue(schedule.id, dueAt);
        continue;
      }
      const outcome = (await this.#deps.tokenActive(schedule.owner.tokenId))
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
      outcomes.push(outcome);
    }
    return outcomes;
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

/** The latest tick after the one last started (or after the schedule was made), up to now. */
function dueTick(schedule: Schedule, now: Date): Date | null {
  try {
    return cronTimes(schedule.cron, schedule.timezone).latestDue(
      schedule.lastDueAt ?? schedule.createdAt,
      now,
    );
  } catch {
    // Checked when the schedule was made; a time zone a later runtime no longer knows stops only this schedule.
    return null;
  }
}
