import type { AgentDefinition, CrewDefinition, PythonToolReference } from '../domain/crew.ts';
import type { FlowAgent } from './flow-agents.ts';
import { flowToolName, pythonReference } from './flow-tool-reference.ts';

/**
 * The tool demand of a flow's agents as one crew, so a flow opens its tool sources exactly as a crew does
 * (openCrewTools): every agent with the tools and MCP servers it names, and the Python tools it names by ref
 * (`module:Class`) as the project's Python tools, with `sourceRoot` on the Python path. Only opened, never run.
 */
export function flowToolCrew(name: string, agents: readonly FlowAgent[], sourceRoot: string): CrewDefinition {
  const python: Record<string, PythonToolReference> = {};
  const definitions = new Map<string, AgentDefinition>();
  for (const agent of agents) {
    const written = strings(agent.fields.tools);
    for (const tool of written) {
      const reference = pythonReference(tool);
      if (reference === undefined) continue;
      python[flowToolName(tool)] = {
        module: reference.module,
        attribute: reference.attribute,
        // The host builds a class and takes anything else (a `@tool` function) as the tool itself.
        kind: 'class',
        builtin: reference.module.split('.')[0] === 'crewai_tools',
      };
    }
    definitions.set(agent.key, {
      name: agent.key,
      role: text(agent.fields.role),
      goal: text(agent.fields.goal),
      backstory: text(agent.fields.backstory),
      tools: written.map(flowToolName),
      mcps: strings(agent.fields.mcps),
      maxIter: 20,
      allowDelegation: false,
      verbose: false,
    });
  }
  return {
    name,
    process: 'sequential',
    agents: definitions,
    tasks: [],
    ...(Object.keys(python).length === 0 ? {} : { pythonTools: { sourceRoot, tools: python } }),
    requiredInputs: [],
  };
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
