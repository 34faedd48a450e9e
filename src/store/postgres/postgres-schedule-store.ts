import { decodeSchedule, decodeTrigger, scheduleValues, triggerValues } from '../schedule-rows.ts';
import type { ScheduleStore } from '../schedule-store.ts';
import { namedQuery } from './named-query.ts';
import type { PostgresContext } from './postgres-context.ts';

const insertSchedule = namedQuery(
  'insert_schedule',
  `INSERT INTO schedules (id, crew, name, cron, timezone, inputs, meta, webhooks, paused, owner_token_id, owner_kind,
     owner_user_id, created_at, last_due_at)
   VALUES (:id, :crew, :name, :cron, :timezone, :inputs, :meta, :webhooks, :paused, :owner_token_id, :owner_kind,
     :owner_user_id, :created_at::timestamptz, :last_due_at::timestamptz)`,
);
const selectSchedules = namedQuery(
  'select_schedules',
  'SELECT * FROM schedules WHERE crew = :crew ORDER BY created_at, id',
);
const selectSchedule = namedQuery('select_schedule', 'SELECT * FROM schedules WHERE id = :id');
const updatePaused = namedQuery(
  'update_schedule_paused',
  'UPDATE schedules SET paused = :paused WHERE id = :id RETURNING id',
);
const deleteSchedule = namedQuery('delete_schedule', 'DELETE FROM schedules WHERE id = :id RETURNING id');
// An older tick never overwrites a newer one.
const markDue = namedQuery(
  'mark_schedule_due',
  `UPDATE schedules SET last_due_at = :due::timestamptz
   WHERE id = :id AND (last_due_at IS NULL OR last_due_at < :due::timestamptz)`,
);

const insertTrigger = namedQuery(
  'insert_trigger',
  `INSERT INTO triggers (name, crew, secret, inputs, created_at)
   VALUES (:name, :crew, :secret, :inputs, :created_at::timestamptz)
   ON CONFLICT (name) DO NOTHING RETURNING name`,
);
const selectTrigger = namedQuery('select_trigger', 'SELECT * FROM triggers WHERE name = :name');
const selectTriggers = namedQuery('select_triggers', 'SELECT * FROM triggers ORDER BY name');
const deleteTrigger = namedQuery('delete_trigger', 'DELETE FROM triggers WHERE name = :name RETURNING name');
const moveCrewSchedules = namedQuery(
  'move_crew_schedules',
  `WITH schedules_moved AS (UPDATE schedules SET crew = :to WHERE crew = :from RETURNING id),
     triggers_moved AS (UPDATE triggers SET crew = :to WHERE crew = :from RETURNING name)
   SELECT id FROM schedules_moved UNION ALL SELECT name FROM triggers_moved`,
);

export function postgresScheduleStore({ query }: PostgresContext): ScheduleStore {
  return {
    createSchedule: async (schedule) => {
      await query(insertSchedule, scheduleValues(schedule));
    },
    listSchedules: async (crew) => (await query(selectSchedules, { crew })).map(decodeSchedule),
    findSchedule: async (id) => {
      const [row] = await query(selectSchedule, { id });
      return row === undefined ? null : decodeSchedule(row);
    },
    setSchedulePaused: async (id, paused) =>
      (await query(updatePaused, { id, paused: paused ? 1 : 0 })).length > 0,
    deleteSchedule: async (id) => (await query(deleteSchedule, { id })).length > 0,
    markScheduleDue: async (id, dueAt) => {
      await query(markDue, { id, due: dueAt.toISOString() });
    },

    createTrigger: async (trigger) => (await query(insertTrigger, triggerValues(trigger))).length > 0,
    findTrigger: async (name) => {
      const [row] = await query(selectTrigger, { name });
      return row === undefined ? null : decodeTrigger(row);
    },
    listTriggers: async () => (await query(selectTriggers)).map(decodeTrigger),
    deleteTrigger: async (name) => (await query(deleteTrigger, { name })).length > 0,

    moveCrewSchedules: async (from, to) => (await query(moveCrewSchedules, { from, to })).length,
  };
}
