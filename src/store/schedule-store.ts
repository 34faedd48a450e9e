import type { Schedule, Trigger } from '../domain/schedule.ts';

/** Where schedules and triggers are kept: shared by every process on the store, as executions are. */
export interface ScheduleStore {
  createSchedule(schedule: Schedule): Promise<void>;
  /** Every schedule of one crew, oldest first. */
  listSchedules(crew: string): Promise<readonly Schedule[]>;
  findSchedule(id: string): Promise<Schedule | null>;
  /** False when there is no such schedule. */
  setSchedulePaused(id: string, paused: boolean): Promise<boolean>;
  deleteSchedule(id: string): Promise<boolean>;
  /** Records that the tick due at `dueAt` was started; never moves `lastDueAt` back. */
  markScheduleDue(id: string, dueAt: Date): Promise<void>;

  /** False when a trigger of that name exists already. */
  createTrigger(trigger: Trigger): Promise<boolean>;
  findTrigger(name: string): Promise<Trigger | null>;
  listTriggers(): Promise<readonly Trigger[]>;
  deleteTrigger(name: string): Promise<boolean>;

  /**
   * Gives the schedules and triggers kept under crew `from` to crew `to`; returns how many. Before servers named
   * their crews, these were kept under the crew's own name, which the name it is served as may differ from.
   */
  moveCrewSchedules(from: string, to: string): Promise<number>;
}
