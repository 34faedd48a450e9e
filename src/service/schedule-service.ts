import { checkInputs } from '../crew/placeholders.ts';
import { CrewdError } from '../domain/errors.ts';
import type { WebhookTargets } from '../domain/execution.ts';
import type { Schedule } from '../domain/schedule.ts';
import type { ScheduleStore } from '../store/schedule-store.ts';
import type { Caller, ExecutionService } from './execution-service.ts';
import { scheduledKickoff } from './scheduled-kickoff.ts';
import { cronTimes } from './schedule-times.ts';

export interface NewScheduleRequest {
  readonly name: string | null;
  readonly cron: string;
  readonly timezone: string;
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly meta: Readonly<Record<string, unknown>> | null;
  readonly webhooks: WebhookTargets;
  readonly caller: Caller;
}

export interface ScheduleServiceDeps {
  readonly store: ScheduleStore;
  readonly executions: Pick<ExecutionService, 'crew' | 'kickoff'>;
  /** The served name of the crew the schedules start. */
  readonly crew: string;
  readonly clock: () => Date;
  readonly newId: () => string;
}

/**
 * A crew's schedules as callers see them: organization tokens see and change every one, user tokens only their own
 * (another user's answers as if it did not exist, like executions).
 */
export class ScheduleService {
  readonly #deps: ScheduleServiceDeps;

  constructor(deps: ScheduleServiceDeps) {
    this.#deps = deps;
  }

  /** Refuses an unreadable cron expression or time zone, and inputs the crew would refuse at kickoff. */
  async create(request: NewScheduleRequest): Promise<Schedule> {
    cronTimes(request.cron, request.timezone);
    checkInputs(this.#deps.executions.crew, request.inputs);
    const schedule: Schedule = {
      id: this.#deps.newId(),
      crew: this.#deps.crew,
      name: request.name,
      cron: request.cron,
      timezone: request.timezone,
      inputs: request.inputs,
      meta: request.meta,
      webhooks: request.webhooks,
      paused: false,
      owner: { tokenId: request.caller.tokenId, kind: request.caller.kind, userId: request.caller.userId },
      createdAt: this.#deps.clock(),
      lastDueAt: null,
    };
    await this.#deps.store.createSchedule(schedule);
    return schedule;
  }

  async list(caller: Caller): Promise<readonly Schedule[]> {
    const all = await this.#deps.store.listSchedules(this.#deps.crew);
    return all.filter((schedule) => visibleTo(schedule, caller));
  }

  async get(id: string, caller: Caller): Promise<Schedule> {
    const schedule = await this.#deps.store.findSchedule(id);
    if (schedule === null || schedule.crew !== this.#deps.crew || !visibleTo(schedule, caller)) {
      throw new CrewdError('NOT_FOUND', `Schedule ${id} not found`);
    }
    return schedule;
  }

  async setPaused(id: string, paused: boolean, caller: Caller): Promise<Schedule> {
    const schedule = await this.get(id, caller);
    await this.#deps.store.setSchedulePaused(id, paused);
    return { ...schedule, paused };
  }

  async delete(id: string, caller: Caller): Promise<void> {
    await this.get(id, caller);
    await this.#deps.store.deleteSchedule(id);
  }

  /** Starts one execution now, outside the schedule's ticks; the ticks go on as before. */
  async runNow(id: string, caller: Caller): Promise<{ readonly kickoffId: string }> {
    const schedule = await this.get(id, caller);
    return this.#deps.executions.kickoff(
      scheduledKickoff(schedule, { dueAt: this.#deps.clock(), late: false, runNow: true }),
    );
  }
}

function visibleTo(schedule: Schedule, caller: Caller): boolean {
  return caller.kind === 'org' || schedule.owner.userId === caller.userId;
}
