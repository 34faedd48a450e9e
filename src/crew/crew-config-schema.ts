import { z } from 'zod';
import { mcpServersSchema } from './mcp-server-schema.ts';
import { flag, model, optionalText, positiveInteger, positiveNumber } from './schema-fields.ts';

/** crew.yaml: optional settings for the whole crew. */
export const crewConfigSchema = z.object({
  name: optionalText(),
  process: z
    .enum(['sequential', 'hierarchical'], { error: 'must be "sequential" or "hierarchical"' })
    .nullish(),
  manager_llm: model(),
  /** The agent (its key in agents.yaml) that leads a hierarchical crew. */
  manager_agent: optionalText(),
  llm: model(),
  function_calling_llm: model(),
  mcp_servers: mcpServersSchema,
  /** crewAI's log switch; crewd's own logs do not depend on it. */
  verbose: flag(),
  /** What each execution may spend before it pauses for approval, unless its kickoff gives its own budget. */
  budget: z
    .strictObject(
      { tokens: positiveInteger(), cost_usd: positiveNumber() },
      { error: 'must be a mapping with tokens and/or cost_usd' },
    )
    .refine((budget) => budget.tokens != null || budget.cost_usd != null, {
      error: 'must set tokens, cost_usd or both',
    })
    .nullish(),
});

export type CrewConfig = z.infer<typeof crewConfigSchema>;
