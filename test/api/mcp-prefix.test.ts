import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { orgToken, startCrewsApi } from './support/api-harness.ts';
import { InMemoryExecutionService } from './support/in-memory-execution-service.ts';
import { hangAfterMs, until } from '../support/until.ts';

const prefix = '/crews/research-crew';

/** A server of crews, as `crewd serve` serves several: the crew's MCP server is at its base URL's `/mcp`. */
async function startPrefixed(service: InMemoryExecutionService) {
  const api = await startCrewsApi([{ kind: 'crew', name: 'research-crew', service }]);
  return { app: api.server, url: api.url };
}

const opened: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close();
});

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'crewd-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${orgToken}` } },
    }),
  );
  opened.push(client);
  return client;
}

describe("the MCP routes under a served crew's base URL", () => {
  it('serve the crew at <prefix>/mcp unchanged, and nothing at the root', async () => {
    const service = new InMemoryExecutionService();
    const { app, url } = await startPrefixed(service);
    opened.push(app);
    const client = await connect(`${url}${prefix}/mcp`);

    const { tools } = await client.listTools();
    const kickoff = tools.find((tool) => tool.name === 'kickoff')!;
    expect(kickoff.inputSchema.required).toEqual(['topic', 'current_year']);
    const result = (await client.callTool({
      name: 'kickoff',
      arguments: { topic: 'tides', current_year: '2025', wait_seconds: 0 },
    })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ state: 'PENDING' });
    expect(service.kickoffs.map((request) => request.inputs)).toEqual([
      { topic: 'tides', current_year: '2025' },
    ]);

    const root = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${orgToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(root.status).toBe(404);
  });

  it('answers a waiting call when the server closes, though the routes sit in the plugin of the served crews', async () => {
    const service = new InMemoryExecutionService();
    const { app, url } = await startPrefixed(service);
    const client = await connect(`${url}${prefix}/mcp`);

    const waiting = client.callTool(
      { name: 'kickoff', arguments: { topic: 'reefs', current_year: '2025', wait_seconds: 300 } },
      undefined,
      { timeout: hangAfterMs },
    );
    // The in-memory execution never moves on its own: only the close can end the wait.
    await until(() => service.kickoffs.length === 1);
    const closed = app.close();
    const result = (await waiting) as CallToolResult;
    await closed;
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({ state: 'PENDING' });
  });
});
