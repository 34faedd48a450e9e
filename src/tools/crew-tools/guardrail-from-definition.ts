import type { Guardrail, GuardrailVerdict } from '../../engine/guardrail.ts';
import type { GuardrailDefinition } from '../define-guardrail.ts';

/** True for a value shaped like a GuardrailDefinition: a name and a `check` function. */
export function isGuardrailDefinition(value: unknown): value is GuardrailDefinition {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<GuardrailDefinition>;
  return typeof candidate.name === 'string' && typeof candidate.check === 'function';
}

/**
 * The engine's Guardrail for a definition from a tools/ module. Throws an Error naming what is wrong with the
 * definition (the caller adds the file).
 */
export function guardrailFromDefinition(definition: GuardrailDefinition): Guardrail {
  const { name } = definition;
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) {
    throw new Error(`guardrail name '${name}' must be 1 to 64 letters, digits, '_', '.' or '-'`);
  }
  return {
    name,
    async check(output) {
      return verdictOf(name, await definition.check(output));
    },
  };
}

function verdictOf(name: string, result: unknown): GuardrailVerdict {
  if (Array.isArray(result) && result[0] === true && result.length <= 2) {
    return result[1] === undefined ? { success: true } : { success: true, result: result[1] };
  }
  if (Array.isArray(result) && result[0] === false && result.length === 2 && typeof result[1] === 'string') {
    return { success: false, error: result[1] };
  }
  throw new Error(`guardrail '${name}' must return [true], [true, result] or [false, feedback]`);
}
