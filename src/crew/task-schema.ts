import { z } from 'zod';
import { flag, names, text } from './schema-fields.ts';

/** One entry of tasks.yaml, as written (snake_case, crewAI's keys). */
export const taskSchema = z.object({
  description: text(),
  expected_output: text(),
  agent: text(),
  context: names(),
  human_input: flag(),
  /** A JSON Schema object, kept as written; the engine validates outputs against it. */
  output_json: z.record(z.string(), z.unknown(), { error: 'must be a JSON Schema object' }).nullish(),
  tools: names(),
});

export type TaskEntry = z.infer<typeof taskSchema>;
