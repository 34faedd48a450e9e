import type { TaskDefinition } from '../domain/crew.ts';
import type { HumanFeedback, TaskOutput } from '../domain/task-output.ts';

/** Everything a task attempt needs to know besides its definition: what it builds on and what it must fix. */
export interface TaskPlan {
  readonly task: TaskDefinition;
  /** Outputs that form the task's context, in the order they are listed. */
  readonly context: readonly TaskOutput[];
  /** Approved, non-empty feedback on earlier tasks: it joins the context of every later task. */
  readonly approvedFeedback: readonly HumanFeedback[];
  /** Rejections of this task since it last ran, oldest first; non-empty means this attempt is a retry. */
  readonly rejections: readonly HumanFeedback[];
  readonly attempt: number;
}

/**
 * Plans the next attempt of `task` from the tasks before it (`earlier`, in order), the accepted outputs so far
 * and every feedback given. Context follows crewAI's rule: the listed tasks, or all earlier ones when the task
 * lists none; `context: []` gives none.
 */
export function planTask(
  task: TaskDefinition,
  earlier: readonly TaskDefinition[],
  accepted: ReadonlyMap<string, TaskOutput>,
  feedback: readonly HumanFeedback[],
): TaskPlan {
  const contextNames = task.context ?? earlier.map((earlierTask) => earlierTask.name);
  const context = contextNames.flatMap((name) => accepted.get(name) ?? []);
  const earlierNames = new Set(earlier.map((earlierTask) => earlierTask.name));
  const approvedFeedback = feedback.filter(
    (entry) => entry.approved && earlierNames.has(entry.taskId) && entry.text.trim() !== '',
  );
  const rejections = rejectionsSinceLastRun(task.name, feedback);
  const lastRejected = Math.max(0, ...rejections.map((entry) => entry.attempt));
  return { task, context, approvedFeedback, rejections, attempt: lastRejected + 1 };
}

function rejectionsSinceLastRun(taskId: string, feedback: readonly HumanFeedback[]): HumanFeedback[] {
  const own = feedback.filter((entry) => entry.taskId === taskId);
  // An approval closes a task's review; only rejections after the last one still ask for changes.
  const lastApproval = own.findLastIndex((entry) => entry.approved);
  return own.slice(lastApproval + 1).filter((entry) => !entry.approved);
}
