import { z } from 'zod';
import type { Tool } from '../../engine/tool.ts';
import type { JsonSchemaObject, ToolDefinition, ZodLikeSchema } from '../define-tool.ts';

/** True for a value shaped like a ToolDefinition: what a tools/ module's exports are searched for. */
export function isToolDefinition(value: unknown): value is ToolDefinition {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<ToolDefinition>;
  return (
    typeof candidate.name === 'string' &&
    typeof candidate.run === 'function' &&
    typeof candidate.inputSchema === 'object' &&
    candidate.inputSchema !== null
  );
}

/**
 * The engine's Tool for a definition from a tools/ module. Throws an Error whose message names what is wrong with
 * the definition (the caller adds the file).
 */
export function toolFromDefinition(definition: ToolDefinition): Tool {
  const { name, description, inputSchema, timeoutMs } = definition;
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) {
    throw new Error(`tool name '${name}' must be 1 to 64 letters, digits, '_', '.' or '-'`);
  }
  if (typeof description !== 'string' || description.trim() === '') {
    throw new Error(`tool '${name}' needs a description`);
  }
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new Error(`tool '${name}' has a timeoutMs that is not a positive number`);
  }
  const zodSchema = isZodSchema(inputSchema) ? inputSchema : undefined;
  const jsonSchema =
    zodSchema === undefined ? (inputSchema as JsonSchemaObject) : toJsonSchema(name, zodSchema);
  return {
    name,
    description,
    inputSchema: jsonSchema,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    async run(input, context) {
      // The engine has checked the input against the JSON Schema; zod also applies defaults and transforms.
      const parsed = zodSchema === undefined ? input : zodSchema.parse(input);
      const output: unknown = await definition.run(parsed, context);
      return typeof output === 'string' ? output : (JSON.stringify(output) ?? '');
    },
  };
}

function isZodSchema(schema: ToolDefinition['inputSchema']): schema is ZodLikeSchema {
  return '_zod' in schema && typeof (schema as { parse?: unknown }).parse === 'function';
}

function toJsonSchema(name: string, schema: ZodLikeSchema): JsonSchemaObject {
  try {
    const { $schema: _dialect, ...json } = z.toJSONSchema(schema as unknown as z.ZodType, { io: 'input' });
    return json;
  } catch {
    throw new Error(`tool '${name}' has an input schema that cannot be turned into JSON Schema`);
  }
}
