import type { FlowActionRequest } from '../tools/python/host-protocol.ts';
import type { FlowActionAnswer } from '../tools/python/python-flow-host.ts';
import type { JsonValue } from './cel-values.ts';
import type { PythonActionHost } from './flow-action-context.ts';
import { FlowMethodError } from './flow-errors.ts';
import type { FlowState } from './flow-state.ts';

/** The one call the adapter needs of the project's Python (PythonFlowHost). */
export interface PythonRequests {
  request(request: FlowActionRequest, signal?: AbortSignal): Promise<FlowActionAnswer>;
}

/**
 * `code`, `tool` and `script` actions run in the project's Python as crewAI runs them: `code` calls its ref with
 * the rendered `with:` as keyword arguments (a plain function gets the flow as `self`, whose `state` it may change),
 * `tool` builds the tool class with no arguments and runs it with `with:`, `script` runs its code with `state`,
 * `outputs`, `input` and `item`. State a code ref or a script changes is the flow's state from then on.
 * `stateModel` is the Pydantic class (`module:qualname`) of a `state.type: pydantic` flow: the state is built as it.
 */
export function pythonFlowActions(
  python: PythonRequests,
  flow: { readonly name: string; readonly stateModel: string | undefined },
): PythonActionHost {
  return {
    async run(action, args, context) {
      const written = action.document;
      const common = {
        flow: flow.name,
        state: context.data.state,
        stateModel: flow.stateModel ?? null,
        input: context.input ?? null,
      };
      const request: FlowActionRequest =
        action.call === 'script'
          ? {
              op: 'flow-script',
              ...common,
              code: typeof written.code === 'string' ? written.code : '',
              outputs: context.data.outputs ?? {},
              item: context.data.item ?? null,
            }
          : {
              op: action.call === 'code' ? 'flow-code' : 'flow-tool',
              ...common,
              ref: typeof written.ref === 'string' ? written.ref : '',
              kwargs: args ?? (action.call === 'tool' ? {} : null),
            };
      let answer: FlowActionAnswer;
      try {
        answer = await python.request(request, context.signal);
      } catch (error) {
        if (context.signal.aborted) throw error;
        throw new FlowMethodError(
          context.method,
          `call: ${action.call} failed in Python: ${error instanceof Error ? error.message : String(error)}`,
          error,
        );
      }
      if (answer.state !== undefined && context.setState !== undefined) {
        const previous = context.data.state as FlowState | undefined;
        const id = typeof answer.state.id === 'string' ? answer.state.id : (previous?.id ?? '');
        context.setState({ ...(answer.state as Record<string, JsonValue>), id });
      }
      return answer.value as JsonValue;
    },
  };
}
