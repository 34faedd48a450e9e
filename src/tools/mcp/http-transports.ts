import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpTransportOption } from './mcp-transport.ts';

/**
 * A server at a URL: Streamable HTTP first, then the older HTTP+SSE transport for servers that answer the
 * Streamable HTTP handshake with an error (the fallback the MCP specification describes for clients).
 */
export function httpTransports(
  url: URL,
  headers: Readonly<Record<string, string>>,
): readonly McpTransportOption[] {
  return [
    {
      kind: 'streamable-http',
      create: () => new StreamableHTTPClientTransport(url, { requestInit: { headers: { ...headers } } }),
    },
    {
      kind: 'sse',
      create: () => new SSEClientTransport(url, { requestInit: { headers: { ...headers } } }),
    },
  ];
}
