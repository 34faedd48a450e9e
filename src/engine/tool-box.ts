import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import { CrewdError } from '../domain/errors.ts';
import type { ToolCall, ToolSpec } from '../llm/chat-model.ts';
import { abortable } from './abortable.ts';
import { ListenerError } from './run-context.ts';
import { TaskStoppingError } from './tool.ts';
import type { Tool, ToolContext } from './tool.ts';
import { modelToolNames } from './model-tool-names.ts';

/** One call's limits: the default timeout for tools that set none, and the longest result the model is shown. */
export interface ToolLimits {
  readonly timeoutMs: number;
  readonly maxOutputChars: number;
}

export const defaultToolLimits: ToolLimits = { timeoutMs: 60_000, maxOutputChars: 20_000 };

/** Where the calls of one task attempt run: every call's context but its id and signal. */
export type ToolScope = Omit<ToolContext, 'toolCallId' | 'abortSignal'>;

/** The tools of one task attempt: their specs for the model, and a way to run the calls it makes. */
export interface ToolBox {
  readonly specs: readonly ToolSpec[];
  /** The name crews use for the tool the model calls by `modelName`, for steps and events. */
  toolName(modelName: string): string;
  /** What keys the tool's results in crewAI's tool cache: its name, with its presets when it has some. */
  cacheKey(modelName: string): string;
  /**
   * Runs one call and returns the text the model sees. Unknown tools, input that breaks the tool's schema, tool
   * failures and timeouts come back as `Error: …` so the model can correct itself; only an abort stops the run.
   */
  run(call: ToolCall, signal: AbortSignal): Promise<string>;
}

const emptyToolBox: ToolBox = {
  specs: [],
  toolName: (modelName) => modelName,
  cacheKey: (modelName) => modelName,
  run: (call) => Promise.resolve(`Error: there is no tool named '${call.name}'. Available tools: none.`),
};

export function createToolBox(
  tools: readonly Tool[],
  scope: ToolScope,
  limits: ToolLimits = defaultToolLimits,
): ToolBox {
  if (tools.length === 0) return emptyToolBox;
  const names = modelToolNames(tools.map((tool) => tool.modelName ?? tool.name));
  const entries = new Map<string, { tool: Tool; check: InputCheck }>();
  for (const [index, tool] of tools.entries()) entries.set(names[index]!, { tool, check: inputCheck(tool) });
  return {
    specs: tools.map(({ description, inputSchema }, index) => ({
      name: names[index]!,
      description,
      inputSchema,
    })),
    toolName: (modelName) => entries.get(modelName)?.tool.name ?? modelName,
    cacheKey: (modelName) => {
      const tool = entries.get(modelName)?.tool;
      return tool?.cacheKey ?? tool?.name ?? modelName;
    },
    async run(call, signal) {
      const entry = entries.get(call.name);
      if (entry === undefined) {
        return `Error: there is no tool named '${call.name}'. Available tools: ${names.join(', ')}.`;
      }
      const problem = entry.check(call.input);
      if (problem !== undefined) {
        return capped(`Error: invalid input for tool '${call.name}': ${problem}`, limits.maxOutputChars);
      }
      const timeoutMs = entry.tool.timeoutMs ?? limits.timeoutMs;
      const timeout = AbortSignal.timeout(timeoutMs);
      const abortSignal = AbortSignal.any([signal, timeout]);
      try {
        const context: ToolContext = { ...scope, toolCallId: call.id, abortSignal };
        const output = await abortable(entry.tool.run(call.input, context), abortSignal);
        return capped(output, limits.maxOutputChars);
      } catch (error) {
        signal.throwIfAborted();
        // A tool may stop the task on purpose, and events a delegated coworker emits may stop the run.
        if (error instanceof TaskStoppingError || error instanceof ListenerError) throw error;
        if (timeout.aborted) return `Error: the tool did not finish within ${seconds(timeoutMs)}.`;
        // A failure's message is a result too: stored with the step and shown to the model, so held to the same cut.
        return capped(`Error: ${errorText(error)}`, limits.maxOutputChars);
      }
    },
  };
}

type InputCheck = (input: unknown) => string | undefined;

/**
 * A tool outlives the task attempts whose tool boxes hold it, so its input schema is compiled once, the first time,
 * and kept as long as the tool is; a tool that checks its own input needs none.
 */
const compiledChecks = new WeakMap<Tool, InputCheck>();

function inputCheck(tool: Tool): InputCheck {
  if (tool.checkInput !== undefined) return tool.checkInput;
  let check = compiledChecks.get(tool);
  if (check === undefined) {
    check = compiledCheck(tool);
    compiledChecks.set(tool, check);
  }
  return check;
}

function compiledCheck(tool: Tool): InputCheck {
  const ajv = new Ajv({ allErrors: true, strict: false, logger: false });
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(tool.inputSchema);
  } catch {
    throw new CrewdError('CONFIG_INVALID', `Tool '${tool.name}' has an input schema that is not valid`);
  }
  return (input) => (validate(input) ? undefined : ajv.errorsText(validate.errors, { dataVar: 'input' }));
}

function capped(output: string, maxChars: number): string {
  if (output.length <= maxChars) return output;
  return `${output.slice(0, maxChars)}\n\n[Output truncated: the tool returned ${output.length} characters; only the first ${maxChars} are shown.]`;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function errorText(error: unknown): string {
  if (error instanceof Error && error.message !== '') return error.message;
  return typeof error === 'string' && error !== '' ? error : 'the tool failed';
}
