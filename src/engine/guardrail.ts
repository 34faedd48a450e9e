/** A task's answer as a guardrail sees it: crewAI's TaskOutput fields that exist before the task ends. */
export interface GuardrailOutput {
  /** The answer's text (crewAI's `raw`). */
  readonly raw: string;
  /** The parsed answer when the task has `output_json`/`output_pydantic`; null otherwise. */
  readonly json: Record<string, unknown> | null;
  /** The task's name in tasks.yaml. */
  readonly taskId: string;
  readonly description: string;
  readonly expectedOutput: string;
  /** The agent's role. */
  readonly agent: string;
}

/**
 * What a check found, as crewAI's `(bool, Any)`: a pass, which may carry a replacement for the answer, or a failure
 * with feedback the agent gets to try again.
 */
export type GuardrailVerdict =
  { readonly success: true; readonly result?: unknown } | { readonly success: false; readonly error: string };

/** A guardrail written in code (a `defineGuardrail` from the crew's tools/ modules). */
export interface Guardrail {
  /** The name crews use in `guardrail: {function: <name>}`. */
  readonly name: string;
  /** Throwing fails the task, as a raising guardrail does in crewAI. */
  check(output: GuardrailOutput): Promise<GuardrailVerdict>;
}
