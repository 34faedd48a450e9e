import { decodeSchedule, decodeTrigger, scheduleValues, triggerValues } from '../schedule-rows.ts';
import type { ScheduleStore } from '../schedule-store.ts';
import type { SqliteContext } from './sqlite-context.ts';
import { settle } from './sqlite-context.ts';

const insertSchedule = `
  INSERT INTO schedules (id, crew, name, cron, timezone, inputs, meta, webhooks, paused, owner_token_id, owner_kind,
    owner_user_id, created_at, last_due_at)
  VALUES (:id, :crew, :name, :cron, :timezone, :inputs, :meta, :webhooks, :paused, :owner_token_id, :owner_kind,
    :owner_user_id, :created_at, :last_due_at)`;
const selectSchedules = 'SELECT * FROM schedules WHERE crew = ? ORDER BY created_at, id';
const selectSchedule = 'SELECT * FROM schedules WHERE id = ?';
const updatePaused = 'UPDATE schedules SET paused = ? WHERE id = ?';
const deleteSchedule = 'DELETE FROM schedules WHERE id = ?';
// ISO times in UTC compare as text; an older tick never overwrites a newer one.
const markDue =
  'UPDATE schedules SET last_due_at = ? WHERE id = ? AND (last_due_at IS NULL OR last_due_at < ?)';

const insertTrigger = `
  INSERT INTO triggers (name, crew, secret, inputs, created_at) VALUES (:name, :crew, :secret, :inputs, :created_at)
  ON CONFLICT (name) DO NOTHING`;
const selectTrigger = 'SELECT * FROM triggers WHERE name = ?';
const selectTriggers = 'SELECT * FROM triggers ORDER BY name';
const deleteTrigger = 'DELETE FROM triggers WHERE name = ?';
const moveSchedules = 'UPDATE schedules SET crew = ? WHERE crew = ?';
const moveTriggers = 'UPDATE triggers SET crew = ? WHERE crew = ?';

export function sqliteScheduleStore({ statement, writes }: SqliteContext): ScheduleStore {
  return {
    createSchedule: (schedule) =>
      writes.write(() => {
        statement(insertSchedule).run(scheduleValues(schedule));
      }),
    listSchedules: (crew) => settle(() => statement(selectSchedules).all(crew).map(decodeSchedule)),
    findSchedule: (id) =>
      settle(() => {
        const row = statement(selectSchedule).get(id);
        return row === undefined ? null : decodeSchedule(row);
      }),
    setSchedulePaused: (id, paused) =>
      writes.write(() => statement(updatePaused).run(paused ? 1 : 0, id).changes > 0),
    deleteSchedule: (id) => writes.write(() => statement(deleteSchedule).run(id).changes > 0),
    markScheduleDue: (id, dueAt) =>
      writes.write(() => {
        const due = dueAt.toISOString();
        statement(markDue).run(due, id, due);
      }),

    createTrigger: (trigger) =>
      writes.write(() => statement(insertTrigger).run(triggerValues(trigger)).changes > 0),
    findTrigger: (name) =>
      settle(() => {
        const row = statement(selectTrigger).get(name);
        return row === undefined ? null : decodeTrigger(row);
      }),
    listTriggers: () => settle(() => statement(selectTriggers).all().map(decodeTrigger)),
    deleteTrigger: (name) => writes.write(() => statement(deleteTrigger).run(name).changes > 0),

    moveCrewSchedules: (from, to) =>
      writes.write(
        () => statement(moveSchedules).run(to, from).changes + statement(moveTriggers).run(to, from).changes,
      ),
  };
}
