import type { WebhookTargets } from '../domain/execution.ts';
import type { Schedule, Trigger } from '../domain/schedule.ts';
import type { Row } from './row-decoder.ts';

/** Schedules and triggers as both adapters write them: JSON in text columns, times as ISO strings. */
export function scheduleValues(schedule: Schedule): Record<string, string | number | null> {
  return {
    id: schedule.id,
    crew: schedule.crew,
    name: schedule.name,
    cron: schedule.cron,
    timezone: schedule.timezone,
    inputs: JSON.stringify(schedule.inputs),
    meta: schedule.meta === null ? null : JSON.stringify(schedule.meta),
    webhooks: JSON.stringify(schedule.webhooks),
    paused: schedule.paused ? 1 : 0,
    owner_token_id: schedule.owner.tokenId,
    owner_kind: schedule.owner.kind,
    owner_user_id: schedule.owner.userId,
    created_at: schedule.createdAt.toISOString(),
    last_due_at: schedule.lastDueAt?.toISOString() ?? null,
  };
}

export function decodeSchedule(row: Row): Schedule {
  return {
    id: String(row.id),
    crew: String(row.crew),
    name: text(row.name),
    cron: String(row.cron),
    timezone: String(row.timezone),
    inputs: json(row.inputs) as Record<string, unknown>,
    meta: row.meta === null ? null : (json(row.meta) as Record<string, unknown>),
    webhooks: json(row.webhooks) as WebhookTargets,
    paused: Number(row.paused) === 1 || row.paused === true,
    owner: {
      tokenId: String(row.owner_token_id),
      kind: row.owner_kind === 'user' ? 'user' : 'org',
      userId: text(row.owner_user_id),
    },
    createdAt: time(row.created_at),
    lastDueAt: row.last_due_at === null ? null : time(row.last_due_at),
  };
}

export function triggerValues(trigger: Trigger): Record<string, string | null> {
  return {
    name: trigger.name,
    crew: trigger.crew,
    secret: trigger.secret,
    inputs: JSON.stringify(trigger.inputs),
    created_at: trigger.createdAt.toISOString(),
  };
}

export function decodeTrigger(row: Row): Trigger {
  return {
    name: String(row.name),
    crew: text(row.crew),
    secret: String(row.secret),
    inputs: json(row.inputs) as Record<string, unknown>,
    createdAt: time(row.created_at),
  };
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

// PostgreSQL's driver gives jsonb as values and timestamptz as Dates; SQLite gives text.
function json(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

function time(value: unknown): Date {
  return value instanceof Date ? value : new Date(String(value));
}
