import type { Tool, ToolRegistry } from '../engine/tool.ts';
import type { ToolSource, ToolSourceStatus } from './tool-source.ts';

/** The registry of a running process, with the lifecycle of the sources behind it. */
export interface OpenToolRegistry extends ToolRegistry {
  /** Every tool name some source provides now, for messages that list what exists. */
  names(): readonly string[];
  statuses(): readonly ToolSourceStatus[];
  /** Closes every source; safe to call more than once. */
  close(): Promise<void>;
}

/**
 * Opens every source and serves lookups over them. `sources` go from highest precedence to lowest: a tool in the
 * crew's `tools/` directory listed first replaces a built-in of the same name listed last. If one source fails to
 * open, the ones already open are closed and the error is passed on.
 */
export async function openToolRegistry(sources: readonly ToolSource[]): Promise<OpenToolRegistry> {
  const opened = await Promise.allSettled(sources.map((source) => source.open()));
  const failure = opened.find((result) => result.status === 'rejected');
  if (failure !== undefined) {
    await Promise.allSettled(sources.map((source) => source.close()));
    throw failure.reason;
  }
  let closing: Promise<void> | undefined;
  return {
    get(name: string): Tool | undefined {
      for (const source of sources) {
        const tool = source.find(name);
        if (tool !== undefined) return tool;
      }
      return undefined;
    },
    server(reference: string): readonly Tool[] | undefined {
      for (const source of sources) {
        const tools = source.server?.(reference);
        if (tools !== undefined) return tools;
      }
      return undefined;
    },
    guardrail(name: string) {
      for (const source of sources) {
        const guardrail = source.guardrail?.(name);
        if (guardrail !== undefined) return guardrail;
      }
      return undefined;
    },
    names: () => [...new Set(sources.flatMap((source) => source.names()))],
    statuses: () => sources.map((source) => source.status()),
    close() {
      closing ??= Promise.allSettled(sources.map((source) => source.close())).then(() => undefined);
      return closing;
    },
  };
}
