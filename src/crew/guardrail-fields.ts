import { z } from 'zod';
import type { GuardrailSpec } from '../domain/crew.ts';

const namePattern = /^[A-Za-z0-9_.-]{1,64}$/;
const shapeError =
  'must be a description for a model to check the answer against, or {function: <name>} for a defineGuardrail in tools/';

type Context = z.core.$RefinementCtx;

/**
 * One guardrail as crewAI takes it: a description a model checks the answer against, or a function. A function is
 * written `{function: name}` (a `defineGuardrail` in the crew's tools/ modules); crewAI's JSON form for a Python
 * function, `{python: module.name}`, names the TypeScript guardrail that stands in for it. Read by hand rather than
 * as a zod union, so a problem is reported at its own key instead of as "matches no option".
 */
function readEntry(value: unknown, context: Context, path: readonly (string | number)[]): GuardrailSpec {
  const fail = (message: string, at: readonly (string | number)[] = path): GuardrailSpec => {
    context.addIssue({ code: 'custom', message, path: [...at], input: value });
    return z.NEVER;
  };
  if (typeof value === 'string') {
    const description = value.trim();
    return description === '' ? fail(shapeError) : { kind: 'llm', description };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(shapeError);
  const entry = value as Record<string, unknown>;
  const keys = Object.keys(entry);
  if (keys.length === 1 && keys[0] === 'function') {
    const name = typeof entry.function === 'string' ? entry.function.trim() : '';
    if (!namePattern.test(name)) {
      return fail("must be 1 to 64 letters, digits, '_', '.' or '-'", [...path, 'function']);
    }
    return { kind: 'function', name };
  }
  const python = entry.python;
  if (
    typeof python === 'string' &&
    python.trim() !== '' &&
    keys.every((key) => key === 'python' || key === 'at')
  ) {
    const dotted = python.trim();
    const at = typeof entry.at === 'string' ? entry.at : dotted;
    return { kind: 'function', name: dotted.slice(dotted.lastIndexOf('.') + 1), pythonOrigin: at };
  }
  return fail(shapeError);
}

/** crewAI's `guardrail`: one guardrail. */
export function guardrail() {
  return z
    .unknown()
    .transform((value, context) => (value == null ? undefined : readEntry(value, context, [])))
    .optional();
}

/** crewAI's `guardrails`: a list checked in order, or a single one. */
export function guardrailList() {
  return z
    .unknown()
    .transform((value, context) => {
      if (value == null) return undefined;
      if (!Array.isArray(value)) return [readEntry(value, context, [])];
      return value.map((item: unknown, index) => readEntry(item, context, [index]));
    })
    .optional();
}

/** `guardrail_max_retries` (and crewAI's older name, `max_retries`). */
export function retryCount() {
  return z.int({ error: 'must be a whole number' }).min(0, { error: 'must be at least 0' }).nullish();
}
