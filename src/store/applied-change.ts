import type { Execution } from '../domain/execution.ts';
import { executionCopy } from '../domain/execution-copy.ts';
import type { ExecutionChange } from './store.ts';

/**
 * The execution `known` became once `change` was written on top of it, field by field as the adapters' guarded
 * updates write it, given the revision and last event sequence the update returned. Valid only when `known` was
 * the row as it stood, which the revision tells: every write of an execution's fields counts one revision on.
 * A running execution's commits use it instead of reading the whole row back (its outputs, inputs and webhooks,
 * decoded from JSON) after each write.
 */
export function appliedChange(
  known: Execution,
  change: ExecutionChange,
  written: { readonly revision: number; readonly lastEventSequence: number },
): Execution {
  const patch = change.patch ?? {};
  return {
    ...executionCopy(known),
    state: change.state ?? known.state,
    currentTask: patch.currentTask === undefined ? known.currentTask : patch.currentTask,
    lastStep: patch.lastStep === undefined ? known.lastStep : patch.lastStep,
    usage: patch.usage ?? known.usage,
    result: patch.result === undefined ? known.result : patch.result,
    resultJson: patch.resultJson === undefined ? known.resultJson : patch.resultJson,
    error: patch.error === undefined ? known.error : patch.error,
    webhooks: patch.webhooks ?? known.webhooks,
    startedAt: patch.startedAt ?? known.startedAt,
    finishedAt: patch.finishedAt ?? known.finishedAt,
    outputs: change.appendOutput === undefined ? known.outputs : [...known.outputs, change.appendOutput],
    feedback:
      change.appendFeedback === undefined ? known.feedback : [...known.feedback, change.appendFeedback],
    flowJournal:
      change.appendFlowEntry === undefined
        ? known.flowJournal
        : [...(known.flowJournal ?? []), change.appendFlowEntry],
    pending: change.pending === undefined ? known.pending : change.pending,
    updatedAt: change.now,
    revision: written.revision,
    lastEventSequence: written.lastEventSequence,
  };
}
