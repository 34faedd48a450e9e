import type { ToolContext } from '../engine/tool.ts';

/** A JSON Schema object describing a tool's input. */
export type JsonSchemaObject = Record<string, unknown>;

/** Anything with zod 4's `parse` and internals: the input schema may be one, converted to JSON Schema on load. */
export interface ZodLikeSchema<Input = unknown> {
  parse(value: unknown): Input;
  readonly _zod: unknown;
}

/** A tool written for a crew's `tools/` directory, as `defineTool` takes it (or as a plain exported object). */
export interface ToolDefinition<Input = unknown> {
  /** The name agents and tasks use in `tools:`; a built-in or crewAI tool of the same name is replaced. */
  readonly name: string;
  /** What the model reads to decide when to call the tool. */
  readonly description: string;
  /** A zod 4 schema or a JSON Schema object; the model's input is checked against it before `run`. */
  readonly inputSchema: ZodLikeSchema<Input> | JsonSchemaObject;
  /** Longest one call may take, in milliseconds (60 s when absent). */
  readonly timeoutMs?: number;
  /** Runs the tool. A string is what the model sees; anything else is sent as JSON; throwing reports the error. */
  run(input: Input, context: ToolContext): unknown;
}

/**
 * Declares a tool for a crew's `tools/` directory:
 *
 * ```ts
 * import { defineTool } from 'crewd/tools';
 * import { z } from 'zod';
 *
 * export default defineTool({
 *   name: 'word_count',
 *   description: 'Counts the words in a text',
 *   inputSchema: z.object({ text: z.string() }),
 *   run: ({ text }) => String(text.split(/\s+/).filter(Boolean).length),
 * });
 * ```
 *
 * It returns its argument unchanged: a plain object of the same shape works as well, so a crew directory outside a
 * Node project needs nothing installed.
 */
export function defineTool<Input>(definition: ToolDefinition<Input>): ToolDefinition<Input> {
  return definition;
}

export { defineGuardrail } from './define-guardrail.ts';
export type { GuardrailDefinition, GuardrailOutput, GuardrailResult } from './define-guardrail.ts';
