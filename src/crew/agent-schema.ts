import { z } from 'zod';
import { flag, names, optionalText, positiveInteger, text, toolArguments } from './schema-fields.ts';

/** One entry of agents.yaml, as written (snake_case, crewAI's keys). */
export const agentSchema = z.object({
  role: text(),
  goal: text(),
  backstory: text(),
  llm: optionalText(),
  tools: names(),
  tool_arguments: toolArguments(),
  max_iter: positiveInteger(),
  max_rpm: positiveInteger(),
  allow_delegation: flag(),
  verbose: flag(),
});

export type AgentEntry = z.infer<typeof agentSchema>;
