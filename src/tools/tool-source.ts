import type { Tool } from '../engine/tool.ts';

/** Whether a source's tools can be called now, for `/health/ready` and `crewd check`. */
export interface ToolSourceStatus {
  /** What users call the source: `built-in tools`, `MCP server 'files'`, `tools/search.ts`. */
  readonly label: string;
  readonly up: boolean;
  /** Why it is down, in words fit for an operator (no secrets). */
  readonly reason?: string;
}

/**
 * Where tools come from: the built-in tools, one MCP server, the crew's `tools/` directory. A source opens once per
 * process (MCP connections, module loading) and closes on shutdown.
 */
export interface ToolSource {
  /**
   * Loads the source and returns its tools under the names crews use. An MCP server that cannot be reached yet does
   * not reject: its tools fail their calls with a message the model sees, and it keeps trying in the background.
   * Rejects only for a source that can never work (a tool module that does not load), with a message naming it.
   */
  open(): Promise<readonly Tool[]>;
  /** Tools of this source by server reference, for MCP sources; see `ToolRegistry.server`. */
  server?(reference: string): readonly Tool[] | undefined;
  status(): ToolSourceStatus;
  /** Closes connections and child processes; the source is not used again. */
  close(): Promise<void>;
}
