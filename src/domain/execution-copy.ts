import type { EveryField } from './every-field.ts';
import type { Execution } from './execution.ts';

/**
 * A copy of `execution` made as one literal that names every field. A run's commits each make the next execution
 * from the last (`{ ...execution, state }`); on Node 20 a spread of an object that was itself made by a spread, again
 * and again, takes V8's slow path (about 2 µs a copy, against 0.2 µs when each starts from this copy).
 */
export function executionCopy(execution: Execution): Execution {
  const copy: EveryField<Execution> = {
    id: execution.id,
    crew: execution.crew,
    crewVersion: execution.crewVersion,
    state: execution.state,
    inputs: execution.inputs,
    meta: execution.meta,
    webhooks: execution.webhooks,
    owner: execution.owner,
    outputs: execution.outputs,
    feedback: execution.feedback,
    flowJournal: execution.flowJournal,
    flowStateId: execution.flowStateId,
    restoreStateFrom: execution.restoreStateFrom,
    pending: execution.pending,
    currentTask: execution.currentTask,
    lastStep: execution.lastStep,
    usage: execution.usage,
    result: execution.result,
    resultJson: execution.resultJson,
    error: execution.error,
    createdAt: execution.createdAt,
    updatedAt: execution.updatedAt,
    lastEventSequence: execution.lastEventSequence,
    revision: execution.revision,
    startedAt: execution.startedAt,
    finishedAt: execution.finishedAt,
    reviewDeadline: execution.reviewDeadline,
    budget: execution.budget,
    dailyBudget: execution.dailyBudget,
  };
  return copy;
}
