import { z } from 'zod';
import type { ModelSpec } from '../domain/crew.ts';

/**
 * Field builders shared by the crew YAML schemas. Their messages finish a sentence that starts with the key
 * path (`write_report.agent: is required`), so a load error reads well without zod's wording.
 */

/**
 * A required string, trimmed: folded YAML scalars (`role: >`, crewAI's own template style) end with a newline
 * that would otherwise land in the middle of a prompt.
 */
export function text() {
  return z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .trim();
}

/** An optional string; `null` (as in `llm: ~`) counts as absent. */
export function optionalText() {
  return z.string({ error: 'must be a string' }).nullish();
}

/** An optional `true`/`false`. */
export function flag() {
  return z.boolean({ error: 'must be true or false' }).nullish();
}

/** An optional whole number of at least 1. */
export function positiveInteger() {
  return z.int({ error: 'must be a whole number' }).min(1, { error: 'must be at least 1' }).nullish();
}

/** An optional number above 0, such as seconds. */
export function positiveNumber() {
  return z.number({ error: 'must be a number' }).positive({ error: 'must be more than 0' }).nullish();
}

/** An optional whole number of at least 0, such as a count of retries. */
export function wholeNumber() {
  return z.int({ error: 'must be a whole number' }).min(0, { error: 'must be at least 0' }).nullish();
}

/** An optional list of names, such as tools or context tasks. */
export function names() {
  return z
    .array(z.string({ error: 'must be a name (a string)' }), { error: 'must be a list of names' })
    .nullish();
}

/** An absolute http(s) URL, such as a model server's base URL. */
function httpUrl() {
  return z
    .string({ error: 'must be a string' })
    .trim()
    .refine((value) => /^https?:\/\/[^/]/i.test(value) && URL.canParse(value), {
      error: 'must be an absolute http(s) URL, e.g. http://localhost:11434',
    })
    .nullish();
}

const modelObject = z
  .object(
    {
      model: text().min(1, { error: 'must not be empty' }),
      temperature: z.number({ error: 'must be a number' }).min(0, { error: 'must be at least 0' }).nullish(),
      max_tokens: positiveInteger(),
      // crewAI takes either name for the output limit.
      max_completion_tokens: positiveInteger(),
      top_p: z
        .number({ error: 'must be a number' })
        .min(0, { error: 'must be between 0 and 1' })
        .max(1, { error: 'must be between 0 and 1' })
        .nullish(),
      base_url: httpUrl(),
      // litellm's name for base_url, which crewAI also accepts.
      api_base: httpUrl(),
      api_key: optionalText(),
    },
    { error: 'must be a model name or a mapping with a model' },
  )
  .transform((entry): ModelSpec => {
    const maxTokens = entry.max_tokens ?? entry.max_completion_tokens;
    const baseUrl = entry.base_url ?? entry.api_base;
    return {
      model: entry.model,
      ...(entry.temperature == null ? {} : { temperature: entry.temperature }),
      ...(maxTokens == null ? {} : { maxTokens }),
      ...(entry.top_p == null ? {} : { topP: entry.top_p }),
      ...(baseUrl == null ? {} : { baseUrl }),
      ...(entry.api_key == null || entry.api_key.trim() === '' ? {} : { apiKey: entry.api_key.trim() }),
    };
  });

/** The keys an `llm:` mapping may hold; others are reported and ignored. */
export const modelKeys: readonly string[] = Object.keys(modelObject.in.shape);

/**
 * An optional model as crewAI's `llm` takes it: a name (`gpt-4o`, `ollama/llama3.1`) or a mapping with the name
 * and call settings (`{model, temperature, max_tokens, top_p, base_url, api_key}`); `null` counts as absent.
 */
export function model() {
  return z
    .preprocess((value) => (typeof value === 'string' ? { model: value } : value), modelObject)
    .nullish();
}

/** An optional JSON Schema object, as `output_json` takes it. */
export function jsonSchemaObject() {
  return z.record(z.string(), z.unknown(), { error: 'must be a JSON Schema object' }).nullish();
}

/** Literal tool constructor arguments read from crew.py, by tool name. */
export function toolArguments() {
  return z
    .record(z.string(), z.record(z.string(), z.unknown()), { error: 'must map tool names to arguments' })
    .nullish();
}
