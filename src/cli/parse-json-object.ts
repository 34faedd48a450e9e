import { CrewdError } from '../domain/errors.ts';

/** Parses a flag's value as a JSON object, naming the flag when it is not one. */
export function parseJsonObject(text: string, flag: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CrewdError(
      'VALIDATION_ERROR',
      `${flag} is not valid JSON; pass an object such as '{"topic": "AI"}'`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CrewdError('VALIDATION_ERROR', `${flag} must be a JSON object such as '{"topic": "AI"}'`);
  }
  return value as Record<string, unknown>;
}
