import { afterEach, describe, expect, it } from 'vitest';
import { createMcpToolSource } from '../../src/tools/mcp/index.ts';
import type { McpToolSource } from '../../src/tools/mcp/index.ts';
import {
  startRedirectingServer,
  startSseEndpointServer,
  startStreamableHttpServer,
} from '../support/mcp-http-server.ts';
import type { McpHttpServer } from '../support/mcp-http-server.ts';

const context = {
  toolCallId: 'call-1',
  executionId: 'exec-1',
  taskId: 'task',
  agent: 'agent',
  abortSignal: new AbortController().signal,
};

const sources: McpToolSource[] = [];
const servers: McpHttpServer[] = [];

async function started(server: Promise<McpHttpServer>): Promise<McpHttpServer> {
  servers.push(await server);
  return server;
}

/** A server as a crew file declares it, opened with crewd's environment `env`. */
async function openDeclared(url: string, env: Record<string, string> = {}): Promise<McpToolSource> {
  const source = createMcpToolSource(
    'remote',
    { kind: 'http', url, headers: {} },
    { env, backoff: { firstMs: 60_000, maxMs: 60_000 } },
  );
  sources.push(source);
  await source.open();
  return source;
}

afterEach(async () => {
  await Promise.all(sources.splice(0).map((source) => source.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('the addresses an MCP server over HTTP is reached at', () => {
  it('include loopback ones a crew file declares, without CREWD_TOOLS_ALLOW_PRIVATE', async () => {
    const server = await started(startStreamableHttpServer());
    const source = await openDeclared(server.url);

    expect(source.status().up).toBe(true);
    await expect(source.find('remote.echo')!.run({ text: 'declared' }, context)).resolves.toBe('declared');
  });

  it("follow a redirect within the declared server's origin", async () => {
    const server = await started(startStreamableHttpServer('/mcp/'));
    const source = await openDeclared(server.url);

    expect(source.status().up).toBe(true);
    await expect(source.find('remote.echo')!.run({ text: 'moved' }, context)).resolves.toBe('moved');
    expect(server.requests).toContain('POST /mcp/');
  });

  const environments: [string, Record<string, string>][] = [
    ['without', {}],
    ['even with', { CREWD_TOOLS_ALLOW_PRIVATE: '1' }],
  ];
  for (const [label, env] of environments) {
    it(`never follow a redirect to another origin (${label} CREWD_TOOLS_ALLOW_PRIVATE)`, async () => {
      const elsewhere = await started(startStreamableHttpServer());
      const redirecting = await started(startRedirectingServer(elsewhere.url));
      const source = await openDeclared(redirecting.url, env);

      const reason =
        'the server redirected (HTTP 307) to another origin or method, which crewd does not follow';
      expect(source.status()).toMatchObject({ up: false, reason });
      await expect(source.find('remote.echo')!.run({ text: 'x' }, context)).rejects.toThrow(
        `MCP server 'remote' is not reachable: ${reason}`,
      );
      expect(redirecting.requests).not.toEqual([]);
      expect(elsewhere.requests).toEqual([]);
    });
  }

  it('never include an SSE message endpoint on another origin than the declared one', async () => {
    const elsewhere = await started(startStreamableHttpServer());
    const server = await started(startSseEndpointServer(elsewhere.url));
    const source = await openDeclared(server.url);

    expect(source.status()).toMatchObject({ up: false });
    // The SSE session was opened, and the handshake it asked for was not sent where the server pointed.
    expect(server.requests).toContain('GET /sse');
    expect(elsewhere.requests).toEqual([]);
  });
});
