import type { McpTransportOption } from './mcp-transport.ts';
import { StdioTransport } from './stdio-transport.ts';
import type { StdioTransportOptions } from './stdio-transport.ts';

/** A server crewd starts as a child process: one way to reach it. */
export function stdioTransports(options: StdioTransportOptions): readonly McpTransportOption[] {
  return [{ kind: 'stdio', create: () => new StdioTransport(options) }];
}
