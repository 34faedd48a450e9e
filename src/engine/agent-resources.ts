import type { AgentDefinition, TaskDefinition } from '../domain/crew.ts';
import { CrewdError } from '../domain/errors.ts';
import type { RunCrewRequest } from './run-crew-types.ts';
import type { Tool } from './tool.ts';

/** The `provider/model` an agent uses: its own `llm`, else the crew's, else the default model. */
export function agentModelId(
  request: Pick<RunCrewRequest, 'crew' | 'defaultModel'>,
  agent: AgentDefinition,
): string {
  const modelId = agent.llm ?? request.crew.llm ?? request.defaultModel;
  if (modelId === undefined || modelId.trim() === '') {
    throw new CrewdError(
      'CONFIG_INVALID',
      `Agent '${agent.name}' has no model: set its llm, the crew's llm or the MODEL variable`,
    );
  }
  return modelId;
}

/** The tools an agent may call on a task: the task's own list when given, else the agent's. */
export function agentTools(
  request: Pick<RunCrewRequest, 'tools'> & { readonly crew?: Pick<RunCrewRequest['crew'], 'toolOrigins'> },
  agent: AgentDefinition,
  task: TaskDefinition,
): Tool[] {
  const names = task.tools ?? agent.tools;
  return [...new Set(names)].map((name) => {
    const tool = request.tools.get(name);
    if (tool === undefined) {
      const origin = request.crew?.toolOrigins?.[name];
      // A custom Python tool cannot run here; a TypeScript tool of the same name stands in for it.
      const hint =
        origin === undefined ? '' : ` (custom Python tool ${name} at ${origin}: add tools/${name}.ts)`;
      throw new CrewdError(
        'CONFIG_INVALID',
        `Agent '${agent.name}' uses tool '${name}', which is not available${hint}`,
      );
    }
    return tool;
  });
}
