import { z } from 'zod';
import {
  flag,
  model,
  names,
  optionalText,
  positiveInteger,
  positiveNumber,
  text,
  toolArguments,
  wholeNumber,
} from './schema-fields.ts';

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
  /** crewAI's `inject_date`: today's date is added to each task's description, in `date_format` (`%Y-%m-%d`). */
  inject_date: flag(),
  date_format: optionalText(),
  /** Seconds one task attempt may take before it fails. */
  max_execution_time: positiveNumber(),
  /** How many times a failed task attempt is run again before the task fails (crewAI's default: 2). */
  max_retry_limit: wholeNumber(),
});

export type AgentEntry = z.infer<typeof agentSchema>;
