import type { JsonSchema } from '../domain/crew.ts';

/** The text of one string in the example, by where it sits (`title`, `key_points[0]`, `` for the root). */
export type ExampleText = (path: string) => string;

/** Deeper than any schema a task writes; a `$ref` that refers to itself stops here instead of recursing forever. */
const maxDepth = 32;
/** Below this depth only required properties are filled, so a recursive schema's optional branches end. */
const optionalDepth = 8;

/**
 * A value that matches `schema`, made from the schema alone: every property an object lists (its required ones
 * included; only those deep down, where a recursive schema would go on), one item per array (or `minItems`), strings from `text`, numbers within their bounds, `true`, the
 * first `enum` value, the first branch of `anyOf`/`oneOf`, local `$ref`s followed. A `pattern` or `format` is not
 * imitated; task schemas rarely have them, and a value that still misses is asked for again like any answer.
 */
export function schemaExample(schema: JsonSchema, text: ExampleText): unknown {
  return example(schema, schema, '', text, 0);
}

type Schema = Readonly<Record<string, unknown>>;

function example(schema: unknown, root: JsonSchema, path: string, text: ExampleText, depth: number): unknown {
  if (!isSchema(schema) || depth > maxDepth) return text(path);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const next = (child: unknown, childPath: string): unknown =>
    example(child, root, childPath, text, depth + 1);
  if (typeof schema.$ref === 'string') return next(resolveRef(root, schema.$ref), path);
  const branches = [schema.anyOf, schema.oneOf].find(Array.isArray) as unknown[] | undefined;
  if (branches !== undefined && branches.length > 0) {
    const chosen = branches.find((branch) => !(isSchema(branch) && branch.type === 'null')) ?? branches[0];
    return next({ ...withoutKeys(schema, ['anyOf', 'oneOf']), ...(chosen as Schema) }, path);
  }
  if (Array.isArray(schema.allOf)) return next(mergeAll(withoutKeys(schema, ['allOf']), schema.allOf), path);
  switch (typeOf(schema)) {
    case 'object':
      return objectExample(schema, path, next, depth < optionalDepth);
    case 'array':
      return arrayExample(schema, path, next);
    case 'number':
      return numberExample(schema, false);
    case 'integer':
      return numberExample(schema, true);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return stringExample(schema, text(path));
  }
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema's type: the first that is not `null` when it lists several, else what its keywords imply. */
function typeOf(schema: Schema): string {
  const types = Array.isArray(schema.type) ? (schema.type as unknown[]) : [schema.type];
  const named = types.find((type) => typeof type === 'string' && type !== 'null') ?? types[0];
  if (typeof named === 'string') return named;
  if (isSchema(schema.properties) || Array.isArray(schema.required)) return 'object';
  if ('items' in schema || Array.isArray(schema.prefixItems)) return 'array';
  return 'string';
}

function objectExample(
  schema: Schema,
  path: string,
  next: (child: unknown, path: string) => unknown,
  withOptional: boolean,
) {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === 'string')
    : [];
  const value: Record<string, unknown> = {};
  for (const name of [...(withOptional ? Object.keys(properties) : []), ...required]) {
    if (Object.hasOwn(value, name)) continue;
    value[name] = next(properties[name] ?? {}, path === '' ? name : `${path}.${name}`);
  }
  return value;
}

function arrayExample(schema: Schema, path: string, next: (child: unknown, path: string) => unknown) {
  const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as unknown[]) : [];
  const tuple = Array.isArray(schema.items) ? (schema.items as unknown[]) : prefix;
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : Number.POSITIVE_INFINITY;
  const count = Math.min(Math.max(1, minItems, tuple.length), maxItems);
  const rest = Array.isArray(schema.items) ? (schema.additionalItems ?? {}) : (schema.items ?? {});
  return Array.from({ length: count }, (_, index) => next(tuple[index] ?? rest, `${path}[${index}]`));
}

function numberExample(schema: Schema, integer: boolean): number {
  const bound = (key: string): number | undefined =>
    typeof schema[key] === 'number' ? schema[key] : undefined;
  let value = 0;
  const minimum = bound('minimum');
  const exclusiveMinimum = bound('exclusiveMinimum');
  const maximum = bound('maximum');
  const exclusiveMaximum = bound('exclusiveMaximum');
  if (minimum !== undefined) value = Math.max(value, minimum);
  if (exclusiveMinimum !== undefined && value <= exclusiveMinimum) value = exclusiveMinimum + 1;
  if (maximum !== undefined && value > maximum) value = maximum;
  if (exclusiveMaximum !== undefined && value >= exclusiveMaximum) {
    const floor = Math.max(minimum ?? Number.NEGATIVE_INFINITY, exclusiveMinimum ?? Number.NEGATIVE_INFINITY);
    value = Number.isFinite(floor) ? (floor + exclusiveMaximum) / 2 : exclusiveMaximum - 1;
  }
  return integer ? Math.ceil(value) : value;
}

function stringExample(schema: Schema, text: string): string {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  const characters = [...text];
  if (characters.length > maxLength) return characters.slice(0, maxLength).join('');
  return characters.length < minLength ? text + '.'.repeat(minLength - characters.length) : text;
}

/** A `$ref` within the task's own schema (`#/$defs/point`, `#/definitions/point`); any other is left open. */
function resolveRef(root: JsonSchema, ref: string): unknown {
  if (!ref.startsWith('#')) return {};
  let target: unknown = root;
  for (const part of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~');
    target = isSchema(target) ? target[key] : undefined;
  }
  return target ?? {};
}

/** `allOf` as one schema: its parts' keywords together, their properties and required names joined. */
function mergeAll(base: Schema, parts: readonly unknown[]): Schema {
  let merged: Schema = base;
  for (const part of parts) {
    if (!isSchema(part)) continue;
    const properties = { ...asSchema(part.properties), ...asSchema(merged.properties) };
    const required = [...asList(merged.required), ...asList(part.required)];
    merged = {
      ...part,
      ...merged,
      ...(Object.keys(properties).length > 0 ? { properties } : {}),
      ...(required.length > 0 ? { required } : {}),
    };
  }
  return merged;
}

function asSchema(value: unknown): Schema {
  return isSchema(value) ? value : {};
}

function asList(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

function withoutKeys(schema: Schema, keys: readonly string[]): Schema {
  return Object.fromEntries(Object.entries(schema).filter(([key]) => !keys.includes(key)));
}
