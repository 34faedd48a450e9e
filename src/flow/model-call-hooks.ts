import type { RunCrewRequest } from '../engine/run-request.ts';
import type { ActionContext } from './flow-action-context.ts';
import { FlowStopped } from './flow-errors.ts';

/**
 * What the crew (or the one-task crew of an agent) of a method runs with around its model calls: the run's prices,
 * and its `beforeModelCall` told the method, whatever it throws carried out as a FlowStopped.
 */
export function modelCallHooks(context: ActionContext): Pick<RunCrewRequest, 'prices' | 'beforeModelCall'> {
  const { prices, beforeModelCall } = context.dependencies;
  return {
    ...(prices === undefined ? {} : { prices }),
    ...(beforeModelCall === undefined
      ? {}
      : {
          beforeModelCall: async (call) => {
            try {
              await beforeModelCall(context.method, call);
            } catch (error) {
              throw new FlowStopped(error);
            }
          },
        }),
  };
}
