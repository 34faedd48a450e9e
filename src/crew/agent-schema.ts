import { z } from 'zod';
import { flag, model, names, positiveInteger, text, toolArguments } from './schema-fields.ts';

/** One entry of agents.yaml, as written (snake_case, crewAI's keys). */
export const agentSchema = z.object({
  role: text(),
  goal: text(),
  backstory: text(),
  llm: model(),
  function_calling_llm: model(),
  tools: names(),
  /** MCP servers whose tools the agent gets: names from crew.yaml's `mcp_servers`, or URLs (`#tool` picks one). */
  mcps: names(),
  tool_arguments: toolArguments(),
  max_iter: positiveInteger(),
  max_rpm: positiveInteger(),
  allow_delegation: flag(),
  verbose: flag(),
  cache: flag(),
});

export type AgentEntry = z.infer<typeof agentSchema>;
