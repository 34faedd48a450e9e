import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import { CrewdError } from '../domain/errors.ts';
import type { ToolCall, ToolSpec } from '../llm/chat-model.ts';
import { abortable } from './abortable.ts';
import type { Tool } from './tool.ts';

/** The tools of one task attempt: their specs for the model, and a way to run the calls it makes. */
export interface ToolBox {
  readonly specs: readonly ToolSpec[];
  /**
   * Runs one call and returns the text the model sees. Unknown tools, input that breaks the tool's schema and
   * tool failures come back as `Error: …` so the model can correct itself; only an abort stops the run.
   */
  run(call: ToolCall, signal: AbortSignal): Promise<string>;
}

const emptyToolBox: ToolBox = {
  specs: [],
  run: (call) => Promise.resolve(`Error: there is no tool named '${call.name}'. Available tools: none.`),
};

export function createToolBox(tools: readonly Tool[]): ToolBox {
  // Most tasks have no tools, and an Ajv instance costs time and memory per attempt: make one only when needed.
  if (tools.length === 0) return emptyToolBox;
  const ajv = new Ajv({ allErrors: true, strict: false, logger: false });
  const entries = new Map<string, { tool: Tool; validate: ValidateFunction }>();
  for (const tool of tools) {
    try {
      entries.set(tool.name, { tool, validate: ajv.compile(tool.inputSchema) });
    } catch {
      throw new CrewdError('CONFIG_INVALID', `Tool '${tool.name}' has an input schema that is not valid`);
    }
  }
  return {
    specs: tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
    async run(call, signal) {
      const entry = entries.get(call.name);
      if (entry === undefined) {
        const available = [...entries.keys()].join(', ') || 'none';
        return `Error: there is no tool named '${call.name}'. Available tools: ${available}.`;
      }
      if (!entry.validate(call.input)) {
        return `Error: invalid input for tool '${call.name}': ${ajv.errorsText(entry.validate.errors, { dataVar: 'input' })}`;
      }
      try {
        return await abortable(entry.tool.run(call.input, signal), signal);
      } catch (error) {
        signal.throwIfAborted();
        return `Error: ${errorText(error)}`;
      }
    },
  };
}

function errorText(error: unknown): string {
  if (error instanceof Error && error.message !== '') return error.message;
  return typeof error === 'string' && error !== '' ? error : 'the tool failed';
}
