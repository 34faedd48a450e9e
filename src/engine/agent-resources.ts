import type { AgentDefinition, CrewDefinition, ModelSpec, TaskDefinition } from '../domain/crew.ts';
import { CrewdError } from '../domain/errors.ts';
import type { RunCrewRequest } from './run-request.ts';
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

/**
 * The tools an agent may call on a task: the task's own `tools` when given, else the agent's, then the tools of the
 * agent's `mcps` servers. `CONFIG_INVALID` names the agent, the tool and how to provide it when none does.
 */
export function agentTools(
  request: Pick<RunCrewRequest, 'tools'> & { readonly crew?: Pick<RunCrewRequest['crew'], 'toolOrigins'> },
  agent: AgentDefinition,
  task: TaskDefinition,
): Tool[] {
  // crew.py's constructor arguments go with the list they came from: the task's tools, else the agent's.
  const presetsOf = task.tools === undefined ? agent.toolArguments : task.toolArguments;
  const named = [...new Set(task.tools ?? agent.tools)].map((name) => {
    const presets = presetsOf?.[name];
    const tool =
      presets === undefined || request.tools.withPresets === undefined
        ? request.tools.get(name)
        : request.tools.withPresets(name, presets);
    if (tool === undefined) throw missingTool(request, agent, task, name);
    return tool;
  });
  const fromServers = (agent.mcps ?? []).flatMap((reference) => {
    const tools = request.tools.server(reference);
    if (tools === undefined) {
      throw new CrewdError(
        'CONFIG_INVALID',
        `Agent '${agent.name}' names MCP server '${reference}' in mcps, which is neither a server in crew.yaml's ` +
          'mcp_servers nor an http(s) URL',
      );
    }
    return tools;
  });
  // A tool named in `tools` and served again through `mcps` is offered once.
  const seen = new Set<Tool>();
  return [...named, ...fromServers].filter((tool) => !seen.has(tool) && seen.add(tool));
}

function missingTool(
  request: { readonly crew?: Pick<CrewDefinition, 'toolOrigins'> | undefined },
  agent: AgentDefinition,
  task: TaskDefinition,
  name: string,
): CrewdError {
  const origin = request.crew?.toolOrigins?.[name];
  if (origin !== undefined) {
    // A custom Python tool cannot run here; a TypeScript tool of the same name stands in for it.
    return new CrewdError(
      'CONFIG_INVALID',
      `Agent '${agent.name}' uses tool '${name}', which is not available (custom Python tool ${name} at ${origin}: add tools/${name}.ts)`,
    );
  }
  const where =
    task.tools === undefined ? `Agent '${agent.name}'` : `Task '${task.name}' (agent '${agent.name}')`;
  const server = name.includes('.') ? name.slice(0, name.indexOf('.')) : undefined;
  const ways =
    server === undefined
      ? `add tools/${name}.ts (or .js) to the crew directory, use a built-in tool, or declare an MCP server in ` +
        "crew.yaml's mcp_servers and name its tool as <server>.<tool>"
      : `declare the MCP server '${server}' in crew.yaml's mcp_servers, or add tools/${name}.ts to the crew directory`;
  return new CrewdError(
    'CONFIG_INVALID',
    `${where} uses tool '${name}', which no tool source provides: ${ways}`,
  );
}
