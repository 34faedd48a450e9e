import { fromCel } from './cel-values.ts';
import type { JsonValue } from './cel-values.ts';
import { runAgentAction } from './agent-action.ts';
import { runCrewAction } from './crew-action.ts';
import type {
  AtomicActionDefinition,
  EachActionDefinition,
  FlowActionDefinition,
} from './flow-definition.ts';
import { ExpressionEvaluationError, FlowMethodError } from './flow-errors.ts';
import type { ActionContext } from './flow-action-context.ts';
import type { FlowState } from './flow-state.ts';
import { renderTemplated } from './templated-value.ts';

/** Runs one method's `do:`; CEL failures fail the method with crewAI's message. */
export async function runAction(action: FlowActionDefinition, context: ActionContext): Promise<JsonValue> {
  try {
    return action.call === 'each' ? await runEach(action, context) : await runAtomic(action, context);
  } catch (error) {
    if (error instanceof ExpressionEvaluationError)
      throw new FlowMethodError(context.method, error.message, error);
    throw error;
  }
}

async function runAtomic(action: AtomicActionDefinition, context: ActionContext): Promise<JsonValue> {
  switch (action.call) {
    case 'expression':
      return fromCel(action.expression.evaluate(context.data));
    case 'agent':
      return runAgentAction(action, context);
    case 'crew':
      return runCrewAction(action, context);
    case 'code':
    case 'tool':
    case 'script': {
      const host = context.dependencies.pythonActions;
      if (host === undefined)
        throw new FlowMethodError(
          context.method,
          `call: ${action.call} runs Python, and no Python host is configured`,
        );
      const args =
        action.arguments === undefined ? undefined : renderTemplated(action.arguments, context.data);
      return host.run(action, args, context);
    }
  }
}

/**
 * crewAI's `each`: items one after another, steps one after another per item. Within an item `outputs` holds the
 * flow's outputs with this item's step outputs over them; a step whose `if` is false keeps the last output.
 */
async function runEach(action: EachActionDefinition, context: ActionContext): Promise<JsonValue> {
  const items = fromCel(action.items.evaluate(context.data));
  if (!Array.isArray(items)) throw new FlowMethodError(context.method, 'each.in must evaluate to an array');
  const flowOutputs = (context.data.outputs ?? {}) as Record<string, JsonValue>;
  const results: JsonValue[] = [];
  // A Python step may change the state: later steps see the change, as crewAI's live state shows it.
  let state = context.data.state;
  const setState = (next: FlowState): void => {
    state = next;
    context.setState?.(next);
  };
  for (const item of items) {
    const stepOutputs: Record<string, JsonValue> = {};
    let last: JsonValue = null;
    for (const step of action.steps) {
      const data = { state, outputs: { ...flowOutputs, ...stepOutputs }, item };
      if (step.condition !== undefined) {
        const decision = step.condition.evaluate(data);
        if (typeof decision !== 'boolean')
          throw new FlowMethodError(context.method, 'if expression must evaluate to a boolean');
        if (!decision) continue;
      }
      last = await runAtomic(step.action, { ...context, data, setState });
      stepOutputs[step.name] = last;
    }
    results.push(last);
  }
  return results;
}
