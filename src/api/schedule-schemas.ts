import { z } from 'zod';
import type { Schedule } from '../domain/schedule.ts';
import { kickoffBodySchema } from './request-schemas.ts';
import type { CronTimes } from '../service/schedule-times.ts';

/** A schedule is made with what a kickoff takes, and when: a cron expression read in a time zone. */
export const scheduleBodySchema = kickoffBodySchema
  .omit({ restoreFromStateId: true, restore_from_state_id: true })
  .extend({
    inputs: kickoffBodySchema.shape.inputs.default({}),
    cron: z
      .string()
      .min(1)
      .max(120)
      .describe('Five fields (minute hour day month weekday), or six with seconds first, e.g. "0 9 * * 1-5"'),
    timezone: z
      .string()
      .min(1)
      .max(64)
      .default('UTC')
      .describe('An IANA time zone, e.g. "Europe/Paris" (default UTC)'),
    name: z.string().min(1).max(200).nullable().optional().describe('A label to recognise the schedule by'),
  });

export const scheduleIdParamsSchema = z.object({ id: z.string().min(1) });

export const scheduleViewSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  cron: z.string(),
  timezone: z.string(),
  inputs: z.record(z.string(), z.unknown()),
  meta: z.record(z.string(), z.unknown()).nullable(),
  paused: z.boolean(),
  created_at: z.string(),
  last_due_at: z.string().nullable().describe('The latest tick an execution was started for'),
  next_due_at: z.string().nullable().describe('When the next tick falls due; null while paused'),
});

export const scheduleListSchema = z.object({ schedules: z.array(scheduleViewSchema) });

/** The schedule as callers see it: never its webhook URLs or their credentials. */
export function toScheduleView(
  schedule: Schedule,
  times: CronTimes,
  now: Date,
): z.infer<typeof scheduleViewSchema> {
  const next = schedule.paused ? null : times.next(maxDate(now, schedule.lastDueAt));
  return {
    id: schedule.id,
    name: schedule.name,
    cron: schedule.cron,
    timezone: schedule.timezone,
    inputs: { ...schedule.inputs },
    meta: schedule.meta === null ? null : { ...schedule.meta },
    paused: schedule.paused,
    created_at: schedule.createdAt.toISOString(),
    last_due_at: schedule.lastDueAt?.toISOString() ?? null,
    next_due_at: next?.toISOString() ?? null,
  };
}

function maxDate(a: Date, b: Date | null): Date {
  return b !== null && b.getTime() > a.getTime() ? b : a;
}
