import { z } from 'zod';

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

/** An optional list of names, such as tools or context tasks. */
export function names() {
  return z
    .array(z.string({ error: 'must be a name (a string)' }), { error: 'must be a list of names' })
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
