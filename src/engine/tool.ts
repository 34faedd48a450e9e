import type { JsonSchema } from '../domain/crew.ts';
import { CrewdError } from '../domain/errors.ts';
import type { Guardrail } from './guardrail.ts';

/** What a tool call knows of where it runs, as one options object. */
export interface ToolContext {
  /** The model's id for this call; unique within the execution's conversation. */
  readonly toolCallId: string;
  /** The execution (kickoff id) the call belongs to: its workspace, its cache, its logs. */
  readonly executionId: string;
  /** The task's name in tasks.yaml. */
  readonly taskId: string;
  /** The agent's name in agents.yaml. */
  readonly agent: string;
  /** Aborts when the execution is cancelled, the process stops or the call's time is up. */
  readonly abortSignal: AbortSignal;
}

/** A tool an agent can call through the model's native tool calling. */
export interface Tool {
  /** The name crews use in `tools:` (`SerperDevTool`, `files.read_file`, …); the model may see a safe alias. */
  readonly name: string;
  /** The name the model is offered, when the tool's source names it as its framework does (crewAI's Python tools). */
  readonly modelName?: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  /**
   * Tells this tool's results apart in crewAI's tool cache from those of another instance of the same name (one
   * with other preset arguments); the name stands for it when absent.
   */
  readonly cacheKey?: string;
  /** Longest one call may take; the engine's default (60 s) when absent. */
  readonly timeoutMs?: number;
  /**
   * Checks an input against `inputSchema` without compiling it: what is wrong, or undefined when it is fine. Tools
   * the engine makes for every attempt (delegation) set it, since compiling a schema costs milliseconds.
   */
  readonly checkInput?: (input: unknown) => string | undefined;
  /** Runs the tool; the string it returns is what the model sees. Throwing reports the error to the model. */
  run(input: unknown, context: ToolContext): Promise<string>;
}

/** The tools a crew can name, looked up at every task attempt so a server that comes back brings its tools. */
export interface ToolRegistry {
  /** A tool by the name crews use in `tools:`, or undefined. */
  get(name: string): Tool | undefined;
  /**
   * Every tool of an MCP server, by its name in crew.yaml's `mcp_servers` or its URL in an agent's `mcps`
   * (`<url>#<tool>` picks one); undefined when no such server is configured.
   */
  server(reference: string): readonly Tool[] | undefined;
  /**
   * The tool `name` with constructor arguments preset, as crew.py instantiates it (`FileReadTool(file_path="a")`);
   * the tool without them when it takes none (a crew's own tool), undefined when no source has it. Absent on
   * registries without such tools.
   */
  withPresets?(name: string, presets: Readonly<Record<string, unknown>>): Tool | undefined;
  /** A guardrail function by the name tasks use in `guardrail: {function: <name>}`, or undefined. */
  guardrail(name: string): Guardrail | undefined;
}

/** A registry holding the given tools and guardrails, and no servers. */
export function toolRegistryOf(tools: readonly Tool[], guardrails: readonly Guardrail[] = []): ToolRegistry {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const guardrailsByName = new Map(guardrails.map((guardrail) => [guardrail.name, guardrail]));
  return {
    get: (name) => byName.get(name),
    server: () => undefined,
    guardrail: (name) => guardrailsByName.get(name),
  };
}

/**
 * Thrown by a tool to fail the task instead of reporting an error to the model (a delegation past its limits): the
 * tool box passes it on unchanged.
 */
export class TaskStoppingError extends CrewdError {
  constructor(message: string) {
    super('TASK_FAILED', message);
    this.name = 'TaskStoppingError';
  }
}
