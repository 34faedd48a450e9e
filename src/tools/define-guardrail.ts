import type { GuardrailOutput } from '../engine/guardrail.ts';

export type { GuardrailOutput } from '../engine/guardrail.ts';

/**
 * crewAI's `(bool, Any)`: `[true]` passes the answer as it is; `[true, text]` passes and replaces the answer's text
 * (`[true, object]` replaces the JSON of a task with `output_json`); `[false, feedback]` fails the check, and the
 * agent tries again with the feedback.
 */
export type GuardrailResult = readonly [true, unknown?] | readonly [false, string];

/** A guardrail written for a crew's `tools/` directory, as `defineGuardrail` takes it. */
export interface GuardrailDefinition {
  /** The name tasks use: `guardrail: {function: <name>}`, or crew.py's function of the same name. */
  readonly name: string;
  /** Checks a task's answer. Throwing fails the task. */
  check(output: GuardrailOutput): GuardrailResult | Promise<GuardrailResult>;
}

/**
 * Declares a guardrail for a crew's `tools/` directory:
 *
 * ```ts
 * import { defineGuardrail } from 'crewd/tools';
 *
 * export const shortEnough = defineGuardrail({
 *   name: 'under_200_words',
 *   check: ({ raw }) =>
 *     raw.split(/\s+/).length <= 200 ? [true] : [false, 'The answer is longer than 200 words'],
 * });
 * ```
 *
 * It returns its argument unchanged; a plain object of the same shape works as well.
 */
export function defineGuardrail(definition: GuardrailDefinition): GuardrailDefinition {
  return definition;
}
