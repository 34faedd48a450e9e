import { isCelList, isCelMap, isCelUint } from '@bufbuild/cel';
import type { CelInput, CelValue } from '@bufbuild/cel';

/** A value as JSON holds it: what state, outputs and expression results are made of. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * JSON to a CEL input. Whole numbers become CEL `int` (bigint) as Python's json gives `int` for them, so `1/2` is 0
 * and `state.n + 1` stays an int; other numbers are `double`. (JSON cannot tell `3.0` from `3`; Python can.)
 */
export function toCel(value: unknown): CelInput {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCel);
  if (value !== null && typeof value === 'object') {
    const map = new Map<string, CelInput>();
    for (const [key, item] of Object.entries(value)) if (item !== undefined) map.set(key, toCel(item));
    return map;
  }
  if (value === undefined) return null;
  return value as CelInput;
}

/** A CEL result as JSON, as crewAI's `json.loads(json.dumps(result))` gives it. */
export function fromCel(value: CelValue): JsonValue {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return value;
  if (isCelUint(value)) return Number(value.value);
  if (isCelList(value)) return Array.from(value, (item) => fromCel(item));
  if (isCelMap(value)) {
    const object: Record<string, JsonValue> = {};
    for (const [key, item] of value.entries()) object[mapKey(fromCel(key))] = fromCel(item);
    return object;
  }
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  return otherValueText(value);
}

/** CEL map keys are strings, ints, uints or bools; as JSON keys they are their text. */
function mapKey(key: JsonValue): string {
  return typeof key === 'string' ? key : JSON.stringify(key);
}

/** Values JSON has no form for (types, timestamps, messages): a readable text, as crewAI's encoder falls back to. */
export function otherValueText(value: object): string {
  if ('name' in value && typeof value.name === 'string') return value.name;
  return (
    JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item)) ?? ''
  );
}
