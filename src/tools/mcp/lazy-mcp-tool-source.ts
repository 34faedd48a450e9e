import type { McpServerConfig } from '../../domain/crew.ts';
import type { ToolSource } from '../tool-source.ts';
import type { McpToolSource, McpToolSourceOptions } from './mcp-tool-source.ts';
import { displayName } from './server-url.ts';

/**
 * An MCP server as a tool source whose MCP client (the SDK, its transports and validator) loads when the source
 * opens: a crew without MCP servers never loads it, and every server starts faster for it. Until open, nothing is
 * listed and the server is not connected, as for a source that has not reached its server yet.
 */
export function lazyMcpToolSource(
  name: string,
  config: McpServerConfig,
  options: McpToolSourceOptions,
): ToolSource {
  let source: McpToolSource | undefined;
  let closed = false;
  return {
    async open() {
      const { createMcpToolSource } = await import('./mcp-tool-source.ts');
      // Closed while the client loaded (a server stopping as it starts): nothing to connect.
      if (closed) return;
      source ??= createMcpToolSource(name, config, options);
      await source.open();
    },
    find: (tool) => source?.find(tool),
    names: () => source?.names() ?? [],
    server: (reference) => source?.server(reference),
    status: () =>
      source?.status() ?? { label: `MCP server '${displayName(name)}'`, up: false, reason: 'not connected' },
    close: () => {
      closed = true;
      return source?.close() ?? Promise.resolve();
    },
  };
}
