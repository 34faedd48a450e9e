/** One field that does not fit the state's schema: its dotted location and pydantic's words for why. */
export interface StateFieldProblem {
  readonly field: string;
  readonly message: string;
}

type Schema = Readonly<Record<string, unknown>>;

/** Thrown for schema features crewAI's model builder rejects (a `type` given as a list). */
export class UnsupportedSchemaError extends Error {}

/**
 * Fits `value` to a JSON Schema as crewAI's generated pydantic model does in lax mode: `"5"` becomes 5 for an
 * integer, `"true"` true for a boolean, numbers are not turned into strings, objects with `properties` refuse
 * keys they do not declare. Returns the fitted value and every problem found.
 */
export function coerceToSchema(
  schema: Schema,
  value: unknown,
  root: Schema,
  field = '',
): { value: unknown; problems: StateFieldProblem[] } {
  const problems: StateFieldProblem[] = [];
  const fitted = fit(resolve(schema, root), value, root, field, problems);
  return { value: fitted, problems };
}

/** The schema a `$ref` (local: `#/$defs/X`, `#/definitions/X`) points at; other schemas as they are. */
export function resolve(schema: Schema, root: Schema): Schema {
  const reference = schema.$ref;
  if (typeof reference !== 'string' || !reference.startsWith('#/')) return schema;
  let target: unknown = root;
  for (const segment of reference.slice(2).split('/'))
    target = (target as Record<string, unknown> | undefined)?.[segment];
  return typeof target === 'object' && target !== null ? resolve(target as Schema, root) : {};
}

function fit(
  schema: Schema,
  value: unknown,
  root: Schema,
  field: string,
  problems: StateFieldProblem[],
): unknown {
  const fail = (message: string): unknown => {
    problems.push({ field, message });
    return value;
  };
  if (Array.isArray(schema.type))
    throw new UnsupportedSchemaError(`Unsupported JSON schema type: ${JSON.stringify(schema.type)}`);
  if ('const' in schema && value !== schema.const)
    return fail(`Input should be ${JSON.stringify(schema.const)}`);
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(alternatives)) {
    for (const alternative of alternatives) {
      const attempt: StateFieldProblem[] = [];
      const fitted = fit(resolve(alternative, root), value, root, field, attempt);
      if (attempt.length === 0) return fitted;
    }
    return fail('Input does not match any of the allowed types');
  }
  if (Array.isArray(schema.allOf)) {
    const merged = Object.assign(
      {},
      ...(schema.allOf as Schema[]).map((part) => resolve(part, root)),
    ) as Schema;
    return fit(merged, value, root, field, problems);
  }
  let fitted = value;
  switch (schema.type) {
    case 'string':
      if (typeof value !== 'string') return fail('Input should be a valid string');
      break;
    case 'integer': {
      const number = typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : value;
      if (typeof number !== 'number' || !Number.isInteger(number)) {
        return fail(
          typeof number === 'number'
            ? 'Input should be a valid integer, got a number with a fractional part'
            : 'Input should be a valid integer, unable to parse string as an integer',
        );
      }
      fitted = number;
      break;
    }
    case 'number': {
      const number =
        typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))
          ? Number(value)
          : value;
      if (typeof number !== 'number')
        return fail('Input should be a valid number, unable to parse string as a number');
      fitted = number;
      break;
    }
    case 'boolean': {
      const truthy = ['true', '1', 'yes', 'on', 't', 'y'];
      const falsy = ['false', '0', 'no', 'off', 'f', 'n'];
      if (typeof value === 'string' && truthy.includes(value.toLowerCase())) fitted = true;
      else if (typeof value === 'string' && falsy.includes(value.toLowerCase())) fitted = false;
      else if (value === 1 || value === 0) fitted = value === 1;
      else if (typeof value !== 'boolean') return fail('Input should be a valid boolean');
      break;
    }
    case 'null':
      if (value !== null) return fail('Input should be None');
      break;
    case 'array': {
      if (!Array.isArray(value)) return fail('Input should be a valid list');
      const items =
        typeof schema.items === 'object' && schema.items !== null
          ? resolve(schema.items as Schema, root)
          : {};
      fitted = value.map((item, index) => fit(items, item, root, `${field}.${index}`, problems));
      break;
    }
    case 'object':
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return fail('Input should be a valid dictionary');
      if (typeof schema.properties === 'object' && schema.properties !== null)
        fitted = fitObject(schema, value as Record<string, unknown>, root, field, problems);
      break;
    default:
      break;
  }
  checkConstraints(schema, fitted, field, problems);
  return fitted;
}

/** An object with declared properties: declared keys fitted, undeclared ones refused, required ones present. */
export function fitObject(
  schema: Schema,
  value: Readonly<Record<string, unknown>>,
  root: Schema,
  field: string,
  problems: StateFieldProblem[],
  options: { readonly allowMissing?: boolean; readonly extra?: readonly string[] } = {},
): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const result: Record<string, unknown> = {};
  const at = (key: string): string => (field === '' ? key : `${field}.${key}`);
  for (const [key, property] of Object.entries(properties)) {
    // A field neither required nor defaulted is Optional in crewAI's model: None is a value it accepts.
    if (key in value && value[key] === null && !required.has(key)) result[key] = null;
    else if (key in value) result[key] = fit(resolve(property, root), value[key], root, at(key), problems);
    else if ('default' in property) result[key] = property.default;
    else if (required.has(key)) {
      if (options.allowMissing !== true) problems.push({ field: at(key), message: 'Field required' });
    } else result[key] = null;
  }
  for (const key of Object.keys(value)) {
    if (key in properties) continue;
    if (options.extra?.includes(key) === true) result[key] = value[key];
    else problems.push({ field: at(key), message: 'Extra inputs are not permitted' });
  }
  return result;
}

function checkConstraints(
  schema: Schema,
  value: unknown,
  field: string,
  problems: StateFieldProblem[],
): void {
  const add = (message: string): void => void problems.push({ field, message });
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => option === value)) {
    add(`Input should be ${schema.enum.map((option) => JSON.stringify(option)).join(' or ')}`);
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && value.length < schema.minLength)
      add(`String should have at least ${schema.minLength} characters`);
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength)
      add(`String should have at most ${schema.maxLength} characters`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value))
      add(`String should match pattern '${schema.pattern}'`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum)
      add(`Input should be greater than or equal to ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum)
      add(`Input should be less than or equal to ${schema.maximum}`);
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum)
      add(`Input should be greater than ${schema.exclusiveMinimum}`);
    if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum)
      add(`Input should be less than ${schema.exclusiveMaximum}`);
    if (
      typeof schema.multipleOf === 'number' &&
      Math.abs(value / schema.multipleOf - Math.round(value / schema.multipleOf)) > 1e-9
    ) {
      add(`Input should be a multiple of ${schema.multipleOf}`);
    }
  }
}
