import { checkInputs } from '../crew/placeholders.ts';
import type { CrewDefinition } from '../domain/crew.ts';
import { CrewdError } from '../domain/errors.ts';
import type { ToolRegistry } from '../engine/tool.ts';
import { checkFlowInputs } from '../flow/flow-state.ts';
import type { PythonActionHost } from '../flow/flow-action-context.ts';
import type { FlowDefinition } from '../flow/flow-definition.ts';
import type { ModelResolver } from '../llm/chat-model.ts';
import type { Notifications } from './notifications.ts';

/** What every runnable unit brings: the models and tools it runs with, and the notifications that name it. */
interface RunnableParts {
  readonly models: ModelResolver;
  readonly tools: ToolRegistry;
  readonly defaultModel: string | undefined;
  readonly notifications: Notifications;
}

/** A crew ready to run. */
export interface RunnableCrew extends RunnableParts {
  readonly kind: 'crew';
  readonly crew: CrewDefinition;
}

/**
 * A flow ready to run. `crew` is its outline (flowOutline): its methods as the tasks `/status`, `/crew` and the
 * other views count and name, and the state's fields as its inputs.
 */
export interface RunnableFlow extends RunnableParts {
  readonly kind: 'flow';
  readonly flow: FlowDefinition;
  readonly crew: CrewDefinition;
  /** Runs the flow's `code`, `tool` and `script` actions in the project's Python; undefined when it has none. */
  readonly pythonActions: PythonActionHost | undefined;
}

/**
 * What a server serves and runs: a crew or a flow. Both answer the same interface; the runner and the service
 * dispatch on `kind` where they differ (how it runs, which inputs it takes, what answering a review does).
 */
export type RunnableUnit = RunnableCrew | RunnableFlow;

/**
 * Checks kickoff inputs against what the unit takes: a crew's placeholders (MissingInputsError), a flow's state
 * (missing required fields, unknown ones and values of the wrong type, each a 422 naming them). A flow's kickoff
 * forking a saved state (`restoreFromStateId`, with `persist`) may leave required fields to that state.
 */
export function checkUnitInputs(
  unit: RunnableUnit,
  inputs: Readonly<Record<string, unknown>>,
  restoreFromStateId?: string,
): void {
  if (unit.kind === 'crew') {
    checkInputs(unit.crew, inputs);
    return;
  }
  const forking = unit.flow.persist && restoreFromStateId !== undefined && restoreFromStateId !== '';
  const check = checkFlowInputs(unit.flow, inputs, forking);
  if (check.missing.length === 0 && check.unknown.length === 0 && check.invalid.length === 0) return;
  const problems = [
    ...check.missing.map((name) => `missing required input '${name}'`),
    ...check.unknown.map((name) => `unknown input '${name}'`),
    ...check.invalid.map((problem) => `invalid input '${problem.field}': ${problem.message}`),
  ];
  throw new CrewdError('MISSING_INPUTS', `The inputs do not fit the flow's state: ${problems.join('; ')}`, {
    details: {
      ...(check.missing.length === 0 ? {} : { missing_inputs: [...check.missing] }),
      ...(check.unknown.length === 0 ? {} : { unknown_inputs: [...check.unknown] }),
      ...(check.invalid.length === 0
        ? {}
        : { invalid_inputs: check.invalid.map((problem) => ({ ...problem })) }),
    },
  });
}
