import type { CrewDefinition } from '../domain/crew.ts';
import type { FlowDefinition } from '../flow/flow-definition.ts';
import { flowInputFields, flowInputs } from '../flow/flow-state.ts';

/**
 * A flow as the crew-shaped views see it (`/status` progress, `/crew`, the API description, A2A and MCP): one task
 * per method in definition order, a review task for each `human_feedback` method, and the state's fields as the
 * inputs. Nothing runs it: flows run through runFlow.
 */
export function flowOutline(flow: FlowDefinition): CrewDefinition {
  return {
    name: flow.name,
    process: 'sequential',
    agents: new Map(),
    tasks: [...flow.methods.values()].map((method) => ({
      name: method.name,
      description: method.humanFeedback?.message ?? `The flow method ${method.name}`,
      expectedOutput: '',
      context: [],
      humanInput: method.humanFeedback !== undefined,
    })),
    requiredInputs: flowInputs(flow),
    inputFields: flowInputFields(flow),
  };
}
