import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../src/domain/crew.ts';
import type { ToolContext } from '../../src/engine/tool.ts';
import { createMcpToolSource } from '../../src/tools/mcp/index.ts';
import type { McpToolSource, McpToolSourceOptions } from '../../src/tools/mcp/index.ts';
import type { ToolSource } from '../../src/tools/tool-source.ts';
import {
  startRejectingServer,
  startSseOnlyServer,
  startStallingServer,
  startStreamableHttpServer,
  unreachableUrl,
} from '../support/mcp-http-server.ts';
import type { McpHttpServer } from '../support/mcp-http-server.ts';
import { until } from '../support/until.ts';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'mcp');

function stdioConfig(overrides: Partial<Extract<McpServerConfig, { kind: 'stdio' }>> = {}): McpServerConfig {
  return {
    kind: 'stdio',
    command: process.execPath,
    args: [join(fixtures, 'stdio-server.mjs')],
    env: {},
    ...overrides,
  };
}

function context(abortSignal = new AbortController().signal): ToolContext {
  return { toolCallId: 'call-1', executionId: 'exec-1', taskId: 'task', agent: 'agent', abortSignal };
}

const env = { PATH: process.env.PATH };
const sources: ToolSource[] = [];
const servers: McpHttpServer[] = [];

async function openSource(
  name: string,
  config: McpServerConfig,
  options: Partial<McpToolSourceOptions> = {},
): Promise<McpToolSource> {
  const source = createMcpToolSource(name, config, {
    env: { PATH: process.env.PATH },
    backoff: { firstMs: 10, maxMs: 200 },
    ...options,
  });
  sources.push(source);
  await source.open();
  return source;
}

async function call(
  source: ToolSource,
  name: string,
  input: unknown = {},
  signal?: AbortSignal,
): Promise<string> {
  const tool = source.find(name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool.run(input, context(signal));
}

async function environmentOf(
  source: ToolSource,
): Promise<{ env: Record<string, string>; cwd: string; pid: number }> {
  return JSON.parse(await call(source, 'demo.environment'));
}

afterEach(async () => {
  await Promise.all(sources.splice(0).map((source) => source.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('an MCP server over stdio', () => {
  it("lists the server's tools under '<name>.<tool>' with their input schemas and calls them", async () => {
    const source = await openSource('demo', stdioConfig());

    expect(source.status()).toEqual({ label: "MCP server 'demo'", up: true });
    expect(source.names()).toEqual(expect.arrayContaining(['demo.echo', 'demo.environment', 'demo.hang']));
    const echo = source.find('demo.echo')!;
    expect(echo.description).toBe('Returns the text it is given.');
    expect(echo.inputSchema).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
    });
    await expect(echo.run({ text: 'hello' }, context())).resolves.toBe('hello');
    expect(source.find('demo.no_such_tool')).toBeUndefined();
    expect(source.find('other.echo')).toBeUndefined();
  });

  it('gives the server only the environment its config names, with ${VAR} expanded, in its cwd', async () => {
    const crewdEnv = {
      PATH: process.env.PATH,
      OPENAI_API_KEY: 'sk-crewd-own-key',
      CREWD_WEBHOOK_SECRET: 'whsec-crewd',
      HOME: '/home/crewd',
      NOTES_TOKEN: 'token-from-crewd-env',
    };
    const source = await openSource(
      'demo',
      stdioConfig({ env: { GREETING: 'hello', NOTES_TOKEN: 'Bearer ${NOTES_TOKEN}' }, cwd: fixtures }),
      { env: crewdEnv },
    );

    const { env, cwd } = await environmentOf(source);
    expect(env.GREETING).toBe('hello');
    expect(env.NOTES_TOKEN).toBe('Bearer token-from-crewd-env');
    expect(env.PATH).toBe(process.env.PATH);
    expect(env).not.toHaveProperty('OPENAI_API_KEY');
    expect(env).not.toHaveProperty('CREWD_WEBHOOK_SECRET');
    expect(env).not.toHaveProperty('HOME');
    expect(realpathSync(cwd)).toBe(realpathSync(fixtures));
  });

  it("logs the server's stderr lines with its name instead of mixing them into crewd's output", async () => {
    const lines: Array<{ mcpServer?: string; stderr?: string }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    await openSource('demo', stdioConfig(), { logger });

    await until(() => lines.some((line) => line.stderr === 'demo server starting'));
    expect(lines.find((line) => line.stderr === 'demo server starting')?.mcpServer).toBe('demo');
  });

  it('stays down, naming the variable and never its value, when a ${VAR} the config names is not set', async () => {
    const source = createMcpToolSource('demo', stdioConfig({ env: { KEY: '${NOT_SET_ANYWHERE}' } }), {
      env: { ...env, OTHER: 'secret-value' },
    });
    sources.push(source);

    await source.open();

    expect(source.status()).toEqual({
      label: "MCP server 'demo'",
      up: false,
      reason: "environment variable 'NOT_SET_ANYWHERE' (in 'KEY') is not set",
    });
    await expect(call(source, 'demo.echo', { text: 'x' })).rejects.toThrow(
      "MCP server 'demo' is not reachable: environment variable 'NOT_SET_ANYWHERE' (in 'KEY') is not set",
    );
  });

  it('closes while a connection attempt is under way, without waiting for the attempt to end', async () => {
    const stalling = await startStallingServer();
    servers.push(stalling);
    const source = createMcpToolSource('slow', { kind: 'http', url: stalling.url, headers: {} }, { env });
    sources.push(source);

    const opening = source.open();
    await until(() => stalling.requests.includes('GET /mcp'));
    await source.close();
    await opening;

    expect(source.status()).toMatchObject({ label: "MCP server 'slow'", up: false, reason: 'closed' });
  });

  it('turns an isError result into a failure with its text, and describes images and resources', async () => {
    const source = await openSource('demo', stdioConfig());

    await expect(call(source, 'demo.fail')).rejects.toThrow('no forecast for Atlantis');
    await expect(call(source, 'demo.mixed')).resolves.toBe(
      'Sunny.\n[image: image/png]\n[resource: file:///forecast.pdf, application/pdf]',
    );
  });

  it('fails a call the server does not answer within the configured timeout, and the next call works', async () => {
    const source = await openSource('demo', stdioConfig({ timeoutMs: 300 }));

    expect(source.find('demo.hang')!.timeoutMs).toBe(300);
    await expect(call(source, 'demo.hang')).rejects.toThrow("MCP server 'demo' did not answer within 300 ms");
    await expect(call(source, 'demo.echo', { text: 'still here' })).resolves.toBe('still here');
  });

  it("stops waiting for a call when the call's signal aborts", async () => {
    const source = await openSource('demo', stdioConfig());
    const controller = new AbortController();

    const pending = call(source, 'demo.hang', {}, controller.signal);
    controller.abort(new Error('execution cancelled'));
    await expect(pending).rejects.toThrow('execution cancelled');
    await expect(call(source, 'demo.echo', { text: 'after abort' })).resolves.toBe('after abort');
  });

  it('fails a call in flight when the server dies, then restarts the server and the next call works', async () => {
    const source = await openSource('demo', stdioConfig());
    const before = await environmentOf(source);

    await expect(call(source, 'demo.crash')).rejects.toThrow(
      "MCP server 'demo' stopped during the call: the server exited with code 3",
    );
    await until(() => source.status().up);
    const after = await environmentOf(source);
    expect(after.pid).not.toBe(before.pid);
    await expect(call(source, 'demo.echo', { text: 'back' })).resolves.toBe('back');
  });

  it('kills the server process on close and does not start it again', async () => {
    const source = await openSource('demo', stdioConfig());
    const { pid } = await environmentOf(source);
    expect(isRunning(pid)).toBe(true);

    await source.close();

    expect(isRunning(pid)).toBe(false);
    expect(source.status()).toEqual({ label: "MCP server 'demo'", up: false, reason: 'closed' });
    await expect(call(source, 'demo.echo', { text: 'x' })).rejects.toThrow(
      "MCP server 'demo' is not reachable: closed",
    );
  });

  it('says a server that exits at start-up exited, with its code', async () => {
    const source = await openSource('quits', stdioConfig({ args: ['-e', 'process.exit(7)'] }));

    expect(source.status()).toEqual({
      label: "MCP server 'quits'",
      up: false,
      reason: 'the server exited with code 7',
    });
  });

  it('opens a server whose command cannot start, and its tools fail with why', async () => {
    const source = await openSource('notes', stdioConfig({ command: 'crewd-no-such-mcp-server', args: [] }));

    expect(source.status()).toEqual({
      label: "MCP server 'notes'",
      up: false,
      reason: "could not start 'crewd-no-such-mcp-server' (ENOENT)",
    });
    expect(source.names()).toEqual([]);
    const tool = source.find('notes.search');
    expect(tool?.name).toBe('notes.search');
    await expect(tool!.run({}, context())).rejects.toThrow(
      "MCP server 'notes' is not reachable: could not start 'crewd-no-such-mcp-server' (ENOENT)",
    );
    expect(source.server('notes#search')!.map((found) => found.name)).toEqual(['notes.search']);
    expect(source.server('notes')).toEqual([]);
  });
});

describe('an MCP server over HTTP', () => {
  it('calls tools over Streamable HTTP with ${VAR} expanded in headers', async () => {
    const server = await startStreamableHttpServer();
    servers.push(server);
    const source = await openSource(
      'remote',
      { kind: 'http', url: server.url, headers: { 'x-api-key': 'key-${REMOTE_KEY}' } },
      { env: { REMOTE_KEY: '42' } },
    );

    expect(source.status().up).toBe(true);
    await expect(call(source, 'remote.echo', { text: 'over http' })).resolves.toBe('over http');
    await expect(call(source, 'remote.header')).resolves.toBe('key-42');
    expect(server.requests).toContain('POST /mcp');
  });

  it('falls back to SSE for a server that does not speak Streamable HTTP', async () => {
    const server = await startSseOnlyServer();
    servers.push(server);
    const source = await openSource('legacy', { kind: 'http', url: server.url, headers: {} });

    expect(source.status().up).toBe(true);
    await expect(call(source, 'legacy.echo', { text: 'over sse' })).resolves.toBe('over sse');
    expect(server.requests).toContain('GET /sse');
  });

  it('serves the tools of a server named by URL by that URL, all of them or one by #name', async () => {
    const server = await startStreamableHttpServer();
    servers.push(server);
    const source = await openSource(server.url, { kind: 'http', url: server.url, headers: {} });

    const all = source.server(server.url)!.map((tool) => tool.name);
    expect(all).toEqual(expect.arrayContaining([`${server.url}.echo`, `${server.url}.fail`]));
    expect(source.server(`${server.url}#echo`)!.map((tool) => tool.name)).toEqual([`${server.url}.echo`]);
    expect(source.server('https://elsewhere.example/mcp')).toBeUndefined();
    await expect(source.server(`${server.url}#echo`)![0]!.run({ text: 'by url' }, context())).resolves.toBe(
      'by url',
    );
  });

  it('refuses to open a server whose URL is not an http(s) URL', async () => {
    const source = createMcpToolSource(
      'remote',
      { kind: 'http', url: 'ftp://example.test/mcp', headers: {} },
      { env },
    );
    sources.push(source);

    await expect(source.open()).rejects.toThrow(
      "MCP server 'remote': 'ftp://example.test/mcp' is not an http(s) URL",
    );
  });

  it('opens with a URL where nothing listens, and calls fail with a message instead of crashing', async () => {
    const url = await unreachableUrl();
    const source = await openSource(url, { kind: 'http', url, headers: {} });

    expect(source.status()).toMatchObject({ up: false, reason: 'connection failed (ECONNREFUSED)' });
    const tool = source.server(`${url}#lookup`)![0]!;
    await expect(tool.run({}, context())).rejects.toThrow(
      `MCP server '${url}' is not reachable: connection failed (ECONNREFUSED)`,
    );
  });

  it('says a server refused the connection by its HTTP status, without the headers crewd sent', async () => {
    const server = await startRejectingServer(401);
    servers.push(server);
    const source = await openSource(
      'remote',
      { kind: 'http', url: server.url, headers: { authorization: 'Bearer ${REMOTE_TOKEN}' } },
      { env: { REMOTE_TOKEN: 'secret-token-123' } },
    );

    expect(source.status()).toMatchObject({
      label: "MCP server 'remote'",
      up: false,
      reason: 'the server answered HTTP 401',
    });
    const failure = call(source, 'remote.echo', { text: 'x' });
    await expect(failure).rejects.toThrow(
      "MCP server 'remote' is not reachable: the server answered HTTP 401",
    );
    await expect(failure).rejects.not.toThrow('secret-token-123');
  });

  it('marks a server that went away as down and fails its calls with a message', async () => {
    const server = await startStreamableHttpServer();
    const source = await openSource('remote', { kind: 'http', url: server.url, headers: {} });
    await server.close();

    // A new connection is refused; a kept-alive one is closed under the request: either says why.
    const failure =
      /^MCP server 'remote' is not reachable: connection failed \((ECONNREFUSED|UND_ERR_SOCKET)\)$/;
    await expect(call(source, 'remote.echo', { text: 'x' })).rejects.toThrow(failure);
    expect(source.status()).toMatchObject({ up: false });
    // Its tools stay listed as last seen, so a crew naming them still loads.
    expect(source.names()).toContain('remote.echo');
  });
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
