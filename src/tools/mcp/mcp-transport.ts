import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * One way to reach an MCP server. A server may offer several (Streamable HTTP, then SSE): the source tries them in
 * order and keeps the first that completes the MCP handshake. Tests substitute their own (an in-memory pair).
 */
export interface McpTransportOption {
  /** `stdio`, `streamable-http`, `sse`: for logs. */
  readonly kind: string;
  /** A new, unstarted transport; one per connection attempt. */
  create(): Transport;
}

/** Why a transport closed, when it knows better than "the connection closed" (a child's exit code). */
export interface McpTransportWithExit extends Transport {
  /** Set once the server ended by itself (`the server exited with code 1`) or could not start; not when closed. */
  readonly exitReason?: string;
}
