import { z } from 'zod';
import { mcpServersSchema } from './mcp-server-schema.ts';
import { flag, model, optionalText } from './schema-fields.ts';

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
});

export type CrewConfig = z.infer<typeof crewConfigSchema>;
