import { z } from 'zod';
import { outputFilePath } from './output-file-path.ts';
import { guardrail, guardrailList, retryCount } from './guardrail-fields.ts';
import { reviewDeadlineAfter, reviewOutcome } from './review-deadline-fields.ts';
import { flag, jsonSchemaObject, names, text, toolArguments } from './schema-fields.ts';

/** One entry of tasks.yaml, as written (snake_case, crewAI's keys). */
export const taskSchema = z.object({
  description: text(),
  expected_output: text(),
  /** Required unless the crew is hierarchical: checkTaskReferences decides, knowing the process. */
  agent: text().nullish(),
  context: names(),
  human_input: flag(),
  /** How long the review of a human-input task may wait before `human_input_on_deadline` answers it. */
  human_input_deadline: reviewDeadlineAfter(),
  human_input_on_deadline: reviewOutcome(),
  /**
   * A JSON Schema object, kept as written; the engine validates outputs against it. crewAI's form, a Pydantic
   * class name, is turned into its schema from crew.py before validation.
   */
  output_json: jsonSchemaObject(),
  /** crewd checks a Pydantic output the same way as a JSON one: against the class's schema. */
  output_pydantic: jsonSchemaObject(),
  tools: names(),
  tool_arguments: toolArguments(),
  /** Where the answer is saved in the execution's workspace; `{placeholders}` are filled from the inputs. */
  output_file: outputFilePath(),
  /** crewAI's default is true: the output file's directories are made when missing. */
  create_directory: flag(),
  /** crewAI's `markdown`: the task prompt asks for a Markdown answer. */
  markdown: flag(),
  guardrail: guardrail(),
  /** When given, crewAI ignores `guardrail`. */
  guardrails: guardrailList(),
  guardrail_max_retries: retryCount(),
  /** crewAI's older name for guardrail_max_retries. */
  max_retries: retryCount(),
});

export type TaskEntry = z.infer<typeof taskSchema>;
