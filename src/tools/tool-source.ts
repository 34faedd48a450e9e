import type { Guardrail } from '../engine/guardrail.ts';
import type { Tool } from '../engine/tool.ts';

/** Whether a source's tools can be called now, for `/health/ready` and `crewd check`. */
export interface ToolSourceStatus {
  /** What users call the source: `built-in tools`, `MCP server 'files'`, `the crew's tools/ directory`. */
  readonly label: string;
  readonly up: boolean;
  /** Why it is down, in words fit for an operator (no secrets). */
  readonly reason?: string;
  /** What `crewd check` lists under the label: each tool with where it is defined, and what runs them. */
  readonly listing?: readonly string[];
  /**
   * Where it is reached, when its label does not say: an MCP server's URL (no credentials, no query) or command.
   * For the operator's terminal and `crewd check` only; never in an HTTP answer.
   */
  readonly address?: string;
}

/** A source as the operator knows it: `MCP server 'mcp' (http://127.0.0.1:8001/mcp)`. */
export function sourceName(status: ToolSourceStatus): string {
  return status.address === undefined ? status.label : `${status.label} (${status.address})`;
}

/**
 * Where tools come from: the built-in tools, one MCP server, the crew's `tools/` directory. A source opens once per
 * process (MCP connections, module loading) and closes on shutdown; lookups are made at every task attempt, so a
 * server that comes back brings its tools.
 */
export interface ToolSource {
  /**
   * Loads the source. An MCP server that cannot be reached yet does not reject: its tools fail their calls with a
   * message the model sees while it keeps trying. Rejects only for a source that can never work (a tool module
   * that does not load), with a message naming it.
   */
  open(): Promise<void>;
  /** A tool by the name crews use in `tools:`, or undefined when this source has none of that name. */
  find(name: string): Tool | undefined;
  /** The names of the tools it provides now, for listings and messages. */
  names(): readonly string[];
  /** Every tool of an MCP server this source is, by reference (see `ToolRegistry.server`); undefined otherwise. */
  server?(reference: string): readonly Tool[] | undefined;
  /** The tool `name` with preset constructor arguments, for sources whose tools take them (the built-in tools). */
  withPresets?(name: string, presets: Readonly<Record<string, unknown>>): Tool | undefined;
  /** A guardrail function by name; only the crew's tools/ directory has them. */
  guardrail?(name: string): Guardrail | undefined;
  status(): ToolSourceStatus;
  /** Closes connections and child processes; the source is not used again. */
  close(): Promise<void>;
}

/** A source of tools that are ready at once and hold nothing open: built-in tools, tools given in code. */
export function staticToolSource(label: string, tools: readonly Tool[]): ToolSource {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return {
    open: () => Promise.resolve(),
    find: (name) => byName.get(name),
    names: () => [...byName.keys()],
    status: () => ({ label, up: true }),
    close: () => Promise.resolve(),
  };
}
