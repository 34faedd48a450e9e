import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpTransportOption } from './mcp-transport.ts';

/**
 * A server at a URL: Streamable HTTP first, then the older HTTP+SSE transport for servers that answer the
 * Streamable HTTP handshake with an error (the fallback the MCP specification describes for clients).
 *
 * Which addresses this reaches is a choice, not an accident. The URL comes from the crew's files, the operator's
 * own input (the same files can start any command as a stdio server), so it is reached wherever it points,
 * loopback and private networks included, without the tools' target guard: MCP servers commonly run beside crewd.
 * Nothing else picks an address: a redirect is followed only within the URL's origin, and an SSE server's message
 * endpoint must share that origin too (the SDK refuses any other), so no server can send crewd on to an address
 * the operator did not write down, whatever CREWD_TOOLS_ALLOW_PRIVATE says.
 */
export function httpTransports(
  url: URL,
  headers: Readonly<Record<string, string>>,
): readonly McpTransportOption[] {
  // Stated rather than left to the SDK's default, so an upgrade that changes the default cannot widen it.
  const redirectPolicy = 'same-origin';
  return [
    {
      kind: 'streamable-http',
      create: () =>
        new StreamableHTTPClientTransport(url, { requestInit: { headers: { ...headers } }, redirectPolicy }),
    },
    {
      kind: 'sse',
      create: () => new SSEClientTransport(url, { requestInit: { headers: { ...headers } }, redirectPolicy }),
    },
  ];
}
