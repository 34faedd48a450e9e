import { Ajv } from 'ajv';
import type { JsonSchema } from '../domain/crew.ts';
import { CrewdError } from '../domain/errors.ts';

export type StructuredOutputCheck =
  | { readonly valid: true; readonly value: Record<string, unknown> }
  | { readonly valid: false; readonly problem: string };

/** Checks an answer against a task's `output_json` schema. */
export type StructuredOutputChecker = (answer: string) => StructuredOutputCheck;

/**
 * Compiles a task's `output_json` schema. Lenient about keywords and formats it does not know, since crews
 * carry schemas written for other tools; throws CONFIG_INVALID when the schema itself is broken.
 */
export function createStructuredOutputChecker(taskName: string, schema: JsonSchema): StructuredOutputChecker {
  const ajv = new Ajv({ allErrors: true, strict: false, logger: false });
  let validate: ReturnType<Ajv['compile']>;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'it cannot be compiled';
    throw new CrewdError(
      'CONFIG_INVALID',
      `The output_json schema of task '${taskName}' is not usable: ${reason}`,
    );
  }
  return (answer) => {
    let value: unknown;
    try {
      value = JSON.parse(jsonText(answer));
    } catch {
      return { valid: false, problem: 'the answer is not valid JSON' };
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return { valid: false, problem: 'the answer must be a JSON object' };
    }
    if (!validate(value)) {
      return { valid: false, problem: ajv.errorsText(validate.errors, { dataVar: 'answer' }) };
    }
    return { valid: true, value: value as Record<string, unknown> };
  };
}

/** The JSON inside an answer: the content of a ```json fence when there is one, else the whole text. */
function jsonText(answer: string): string {
  const fenced = /```(?:json)?[^\S\n]*\n?([\s\S]*?)```/i.exec(answer);
  return (fenced?.[1] ?? answer).trim();
}
