import { z } from 'zod';
import type { GuardrailSpec } from '../domain/crew.ts';

const functionName = z
  .string({ error: 'must be the name of a guardrail in tools/' })
  .trim()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, { error: "must be 1 to 64 letters, digits, '_', '.' or '-'" });

/**
 * One guardrail as crewAI takes it: a description a model checks the answer against, or a function. A function is
 * written `{function: name}` (a `defineGuardrail` in the crew's tools/ modules); crewAI's JSON form for a Python
 * function, `{python: module.name}`, names the TypeScript guardrail that stands in for it.
 */
const guardrailEntry = z.union(
  [
    z
      .string()
      .trim()
      .min(1, { error: 'must not be empty' })
      .transform((description): GuardrailSpec => ({ kind: 'llm', description })),
    z
      .strictObject({ function: functionName })
      .transform((entry): GuardrailSpec => ({ kind: 'function', name: entry.function })),
    z
      .strictObject({
        python: z.string({ error: 'must be a dotted Python name' }).trim().min(1),
        // Where crew.py defines the function, when it was read from there.
        at: z.string().optional(),
      })
      .transform((entry): GuardrailSpec => ({
        kind: 'function',
        name: entry.python.slice(entry.python.lastIndexOf('.') + 1),
        pythonOrigin: entry.at ?? entry.python,
      })),
  ],
  {
    error:
      'must be a description for a model to check the answer against, or {function: <name>} for a defineGuardrail in tools/',
  },
);

/** crewAI's `guardrail`: one guardrail. */
export function guardrail() {
  return guardrailEntry.nullish();
}

/** crewAI's `guardrails`: a list checked in order, or a single one. */
export function guardrailList() {
  return z
    .union([guardrailEntry.transform((entry) => [entry]), z.array(guardrailEntry)], {
      error: 'must be a guardrail or a list of guardrails',
    })
    .nullish();
}

/** `guardrail_max_retries` (and crewAI's older name, `max_retries`). */
export function retryCount() {
  return z.int({ error: 'must be a whole number' }).min(0, { error: 'must be at least 0' }).nullish();
}
