import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import Fastify from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterEach, describe, expect, it } from 'vitest';
import { installBearerAuth } from '../../src/api/bearer-auth.ts';
import { installErrorHandling } from '../../src/api/error-handler.ts';
import { installJsonBodyParser } from '../../src/api/json-body-parser.ts';
import { zodValidatorCompiler } from '../../src/api/request-validation.ts';
import { registerMcpRoutes } from '../../src/api/routes/mcp-routes.ts';
import { Metrics } from '../../src/observability/metrics.ts';
import type { Caller } from '../../src/service/execution-service.ts';
import { InMemoryExecutionService } from './support/in-memory-execution-service.ts';
import { hangAfterMs, until } from '../support/until.ts';

const orgCaller: Caller = { tokenId: 'org-token', kind: 'org', userId: null };
const orgToken = 'org-secret-0123456789';
const prefix = '/crews/research-crew';

/** The MCP routes registered under a prefix, as a server of several crews registers each crew's routes. */
async function startPrefixed(service: InMemoryExecutionService) {
  const app = Fastify({ logger: false }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(zodValidatorCompiler);
  installJsonBodyParser(app);
  installErrorHandling(app, () => Date.now());
  const authenticate = (secret: string) => Promise.resolve(secret === orgToken ? orgCaller : null);
  installBearerAuth(app, authenticate);
  await app.register(
    (crew, _options, done) => {
      registerMcpRoutes(crew, {
        serviceOf: () => service,
        basePathOf: () => prefix,
        metrics: new Metrics(),
        clock: () => new Date(),
        authenticate,
      });
      done();
    },
    { prefix },
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no port');
  return { app, url: `http://127.0.0.1:${address.port}` };
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

describe('the MCP routes under a prefix', () => {
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

  it('answers a waiting call when the server closes, though the routes sit in a plugin of their own', async () => {
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
