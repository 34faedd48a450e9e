import type { JsonSchema } from '../domain/crew.ts';

/** A tool an agent can call through the model's native tool calling. */
export interface Tool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  /** Runs the tool; the string it returns is what the model sees. Throwing reports the error to the model. */
  run(input: unknown, signal: AbortSignal): Promise<string>;
}

/** Tools by name; the crew's `tools:` lists refer to these names. */
export type ToolRegistry = ReadonlyMap<string, Tool>;
