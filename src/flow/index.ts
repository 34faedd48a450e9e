/** crewAI's declarative flows: what the CLI, the service and the API use from this folder. */
export { loadFlow, flowFromText } from './load-flow.ts';
export { isFlow } from './is-flow.ts';
export { openFlowRuntime } from './open-flow-runtime.ts';
export type { FlowRuntime, OpenFlowRuntimeOptions } from './open-flow-runtime.ts';
export type { BuildFlowOptions } from './build-flow.ts';
export type { FlowDefinition, FlowMethodDefinition, PythonActionDefinition } from './flow-definition.ts';
export { FlowDefinitionError, FlowMethodError } from './flow-errors.ts';
export { flowInputs, checkFlowInputs, FlowInputsError } from './flow-state.ts';
export type { FlowInputsCheck, FlowState } from './flow-state.ts';
export { runFlow, pendingReview } from './run-flow.ts';
export type { FlowOutcome, RunFlowOptions } from './run-flow.ts';
export type { FlowEvent } from './flow-run.ts';
export type { FlowJournal, FlowJournalEntry, FlowBookkeeping } from './flow-journal.ts';
export { MemoryFlowJournal } from './memory-flow-journal.ts';
export type { FlowRunDependencies, PythonActionHost, ActionContext, CrewRun } from './flow-action-context.ts';
export { feedbackOutcome } from './feedback-outcome.ts';
export type { JsonValue } from './cel-values.ts';
