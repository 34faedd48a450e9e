import type { AgentDefinition, ModelSpec, TaskDefinition } from '../domain/crew.ts';
import { CrewdError } from '../domain/errors.ts';
import type { RunCrewRequest } from './run-crew-types.ts';
import type { Tool } from './tool.ts';

/** The model an agent uses: its own `llm`, else the crew's, else the default model (the MODEL variable). */
export function agentModel(
  request: Pick<RunCrewRequest, 'crew' | 'defaultModel'>,
  agent: AgentDefinition,
): ModelSpec {
  const spec = agent.llm ?? request.crew.llm ?? modelNamed(request.defaultModel);
  if (spec === undefined || spec.model.trim() === '') {
    throw new CrewdError(
      'CONFIG_INVALID',
      `Agent '${agent.name}' has no model: set its llm, the crew's llm or the MODEL variable`,
    );
  }
  return spec;
}

/**
 * The model for an agent's turns that offer tools (crewAI's `function_calling_llm`): its own, else the crew's;
 * undefined when neither is set, and the agent's own model calls tools too.
 */
export function agentToolCallingModel(
  request: Pick<RunCrewRequest, 'crew'>,
  agent: AgentDefinition,
): ModelSpec | undefined {
  return agent.functionCallingLlm ?? request.crew.functionCallingLlm;
}

function modelNamed(name: string | undefined): ModelSpec | undefined {
  return name === undefined ? undefined : { model: name };
}

/** The tools an agent may call on a task: the task's own list when given, else the agent's. */
export function agentTools(
  request: Pick<RunCrewRequest, 'tools'>,
  agent: AgentDefinition,
  task: TaskDefinition,
): Tool[] {
  const names = task.tools ?? agent.tools;
  return [...new Set(names)].map((name) => {
    const tool = request.tools.get(name);
    if (tool === undefined) {
      throw new CrewdError(
        'CONFIG_INVALID',
        `Agent '${agent.name}' uses tool '${name}', which is not available`,
      );
    }
    return tool;
  });
}
