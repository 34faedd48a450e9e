import type { Schedule } from '../domain/schedule.ts';
import type { KickoffRequest } from './execution-service.ts';

export interface Tick {
  readonly dueAt: Date;
  /** Started well after it fell due (everything was down): the execution's meta says so. */
  readonly late: boolean;
  /** Started by hand ("run now"), not by the clock. */
  readonly runNow: boolean;
}

/**
 * The kickoff one tick of a schedule makes, as its owner's token. A clock tick carries an idempotency key made of
 * the schedule and the due time, so that however many processes start the same tick, the store keeps one execution.
 */
export function scheduledKickoff(schedule: Schedule, tick: Tick): KickoffRequest {
  const dueAt = tick.dueAt.toISOString();
  return {
    inputs: schedule.inputs,
    meta: {
      ...schedule.meta,
      schedule: {
        id: schedule.id,
        name: schedule.name,
        due_at: dueAt,
        ...(tick.late ? { late: true } : {}),
        ...(tick.runNow ? { run_now: true } : {}),
      },
    },
    webhooks: schedule.webhooks,
    idempotencyKey: tick.runNow ? null : `schedule:${schedule.id}:${dueAt}`,
    caller: { tokenId: schedule.owner.tokenId, kind: schedule.owner.kind, userId: schedule.owner.userId },
  };
}
