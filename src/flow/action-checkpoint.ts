import type { CrewDefinition } from '../domain/crew.ts';
import type { HumanFeedback } from '../domain/task-output.ts';
import type { Checkpoint } from '../engine/run-request.ts';
import type { JsonValue } from './cel-values.ts';
import type { ActionContext, ReviewRejection } from './flow-action-context.ts';

/**
 * Where the crew (or the one-task crew of an agent) of a method starts: what a cut-short run left, and, when the
 * method runs again after its reviewer rejected its output, each rejection as a rejection of the crew's last task
 * (the task whose answer was the method's output). The engine then shows the model its previous answer and the
 * feedback, inside feedback slots, as it does on a crew task's retry.
 */
export function actionCheckpoint(context: ActionContext, crew: CrewDefinition): Checkpoint {
  const cut = context.dependencies.checkpointOf?.(context.method) ?? { outputs: [], feedback: [] };
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
