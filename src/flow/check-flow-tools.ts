import type { ToolRegistry } from '../engine/tool.ts';
import type { FlowAgent } from './flow-agents.ts';
import { FlowDefinitionError } from './flow-errors.ts';
import { flowToolName } from './flow-tool-reference.ts';

/**
 * Refuses, at load, an agent naming a tool or MCP server that no tool source provides, naming the method, where
 * the agent is written and the tool: crewAI would fail only when the method runs.
 */
export function checkFlowTools(file: string, agents: readonly FlowAgent[], tools: ToolRegistry): void {
  for (const agent of agents) {
    const named = Array.isArray(agent.fields.tools) ? agent.fields.tools : [];
    for (const [index, written] of named.entries()) {
      if (typeof written !== 'string') continue;
      const name = flowToolName(written);
      if (tools.get(name) !== undefined) continue;
      const python =
        name === written ? '' : ` (${written} could not be built in the project's Python either)`;
      throw new FlowDefinitionError(
        file,
        `method '${agent.method}' gives an agent the tool '${written}', which no tool source provides${python}: ` +
          `add tools/${name}.ts (or .js) beside the flow, use a built-in tool, or name an MCP server's tool`,
        `${agent.key}.tools[${index}]`,
      );
    }
    const servers = Array.isArray(agent.fields.mcps) ? agent.fields.mcps : [];
    for (const [index, reference] of servers.entries()) {
      if (typeof reference !== 'string' || tools.server(reference) !== undefined) continue;
      throw new FlowDefinitionError(
        file,
        `method '${agent.method}' gives an agent the MCP server '${reference}', which is not an http(s) URL`,
        `${agent.key}.mcps[${index}]`,
      );
    }
  }
}
