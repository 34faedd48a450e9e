import { z } from 'zod';
import { flag, optionalText } from './schema-fields.ts';

/** crew.yaml: optional settings for the whole crew. */
export const crewConfigSchema = z.object({
  name: optionalText(),
  process: z
    .enum(['sequential', 'hierarchical'], { error: 'must be "sequential" or "hierarchical"' })
    .nullish(),
  manager_llm: optionalText(),
  llm: optionalText(),
  /** crewAI's log switch; crewd's own logs do not depend on it. */
  verbose: flag(),
});

export type CrewConfig = z.infer<typeof crewConfigSchema>;
