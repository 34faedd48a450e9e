import type { CrewDefinition } from '../domain/crew.ts';
import type { HumanFeedback } from '../domain/task-output.ts';
import type { Checkpoint } from '../engine/run-request.ts';
import { addUsage, emptyUsage, type TokenUsage } from '../domain/usage.ts';
import type { JsonValue } from './cel-values.ts';
import type { ActionContext, CrewRun, ReviewRejection } from './flow-action-context.ts';

/**
 * Where a crew run (or the one-task crew of an agent) of a method starts: what it left when cut short, and, when the
 * method runs again after its reviewer rejected its output, each rejection as a rejection of the crew's last task
 * (the task whose answer was the method's output). The engine then shows the model its previous answer and the
 * feedback, inside feedback slots, as it does on a crew task's retry.
 */
export function actionCheckpoint(context: ActionContext, crew: CrewDefinition, run: CrewRun): Checkpoint {
  const cut = context.dependencies.checkpointOf?.(run) ?? { outputs: [], feedback: [] };
  const last = crew.tasks.at(-1);
  const rejections = context.rejections ?? [];
  if (last === undefined || rejections.length === 0) return cut;
  return {
    ...cut,
    feedback: [
      ...cut.feedback,
      ...rejections.map((rejection, index) => asFeedback(rejection, last.name, index + 1)),
    ],
  };
}

function asFeedback(rejection: ReviewRejection, taskId: string, attempt: number): HumanFeedback {
  return { taskId, attempt, text: rejection.feedback, approved: false, output: answerOf(rejection.output) };
}

/** The text of a rejected output: a crew's or agent's `raw`, a string as it is, anything else as JSON. */
function answerOf(output: JsonValue): string {
  if (typeof output === 'string') return output;
  if (
    output !== null &&
    typeof output === 'object' &&
    !Array.isArray(output) &&
    typeof output.raw === 'string'
  )
    return output.raw;
  return JSON.stringify(output);
}

/**
 * What the tasks a run completed before it was cut short spent: the run skips them, and its output counts them as
 * the uninterrupted run would have.
 */
export function spentBefore(checkpoint: Checkpoint): TokenUsage {
  return checkpoint.outputs.reduce((spent, output) => addUsage(spent, output.usage), emptyUsage);
}
