import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { hangAfterMs } from './until.ts';

/** The MCP SDK's own client, connected over Streamable HTTP to `{base}/mcp` with a bearer token. */
export async function connectMcp(base: string, token: string): Promise<Client> {
  const client = new Client({ name: 'crewd-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** Calls a tool, with a request timeout that only a hang reaches. */
export async function callMcpTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  onprogress?: (progress: Progress) => void,
): Promise<CallToolResult> {
  const options = { timeout: hangAfterMs, ...(onprogress === undefined ? {} : { onprogress }) };
  return (await client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult;
}

/** A successful tool result's structured content. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary result fields
export function structured(result: CallToolResult): any {
  expect(result.isError ?? false).toBe(false);
  return result.structuredContent;
}

/** The contract's error body a tool error carries as its text. */
export function errorBody(result: CallToolResult): unknown {
  expect(result.isError).toBe(true);
  const [content] = result.content;
  return content?.type === 'text' ? JSON.parse(content.text) : content;
}
