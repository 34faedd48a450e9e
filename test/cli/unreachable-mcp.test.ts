import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { unreachableUrl } from '../support/mcp-http-server.ts';
import { userCrew } from '../support/user-crew.ts';
import { finished, runCrewd, spawnCrewd, tempDir, waitForOutput } from './crewd-command.ts';

let model: FakeOpenAIServer;
/** A loopback address where nothing listens: every MCP server of these crews is unreachable. */
let closedUrl: string;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: () => ({ content: 'The docs say nothing today.' }) });
  closedUrl = await unreachableUrl();
});

afterAll(async () => {
  await model.close();
});

/** A copy of the crew with its MCP address where nothing listens. */
function crewAt(name: string, file: string): string {
  const dir = userCrew(join(import.meta.dirname, 'crews', name));
  const path = join(dir, file);
  writeFileSync(path, readFileSync(path, 'utf8').replaceAll('http://127.0.0.1:PORT/mcp', closedUrl));
  return dir;
}

const env = (): Record<string, string> => ({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.url });

describe('an MCP server that cannot be reached at start', () => {
  it('check names a crew.yaml server with the reason and does not say that nothing is left out', async () => {
    const result = await runCrewd(['check', crewAt('unreachable-mcp', 'crew.yaml')], { env: env() });

    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'Tool sources that cannot be used (serve and run start without them only with --allow-partial):\n' +
        `  - MCP server 'docs' (${closedUrl}) cannot be used: connection failed (ECONNREFUSED)\n`,
    );
    expect(result.stdout).not.toContain('Nothing is left out');
    // Listed in the report, not warned about as if check were starting the crew.
    expect(result.stdout).not.toContain('starting without');
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe(
      '1 problem: crewd does not run this crew as written.',
    );
    expect(result.stderr).toBe('crewd: the crew does not run as written (see the report above)\n');
  });

  it("check names a server an agent's mcps gives by URL", async () => {
    const result = await runCrewd(['check', crewAt('agent-mcps-url', 'agents.yaml')], { env: env() });

    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      `  - MCP server '${closedUrl}' cannot be used: connection failed (ECONNREFUSED)\n`,
    );
    expect(result.stdout).toContain('1 problem: crewd does not run this crew as written.');
  });

  it('check names a server written in crew.py', async () => {
    const project = userCrew(join(import.meta.dirname, 'crews/crew-py-mcp'));
    const result = await runCrewd(['check', project], {
      env: { ...env(), MODEL: 'openai/test-model', DOCS_MCP_URL: closedUrl },
    });

    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      `  - MCP server 'mcp' (${closedUrl}) cannot be used: connection failed (ECONNREFUSED)\n`,
    );
    expect(result.stdout).not.toContain('Nothing is left out');
  });

  it('run refuses to start, naming the server and the way to start without it, and calls no model', async () => {
    const before = model.requests.length;

    const result = await runCrewd(
      ['run', crewAt('unreachable-mcp', 'crew.yaml'), '--inputs', '{"topic": "kettles"}'],
      { env: env() },
    );

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `crewd: MCP server 'docs' (${closedUrl}) cannot be used: connection failed (ECONNREFUSED). crewd does not start without ` +
        'its tools: make it reachable, or pass --allow-partial to start without it\n',
    );
    expect(model.requests.length).toBe(before);
  });

  it('run --allow-partial runs without the server, saying so on the terminal', async () => {
    const result = await runCrewd(
      ['run', crewAt('unreachable-mcp', 'crew.yaml'), '--allow-partial', '--inputs', '{"topic": "kettles"}'],
      { env: env() },
    );

    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `warning: starting without MCP server 'docs' (${closedUrl}), which cannot be used: connection failed (ECONNREFUSED); ` +
        'its tools fail until it can be reached, and crewd keeps trying to reach it\n',
    );
    expect(result.stdout).toBe('The docs say nothing today.\n');
  });

  it('serve refuses to start, naming the server', async () => {
    const result = await runCrewd(
      [
        'serve',
        crewAt('unreachable-mcp', 'crew.yaml'),
        '--port',
        '0',
        '--database',
        join(tempDir(), 'crewd.db'),
      ],
      { env: env() },
    );

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`crewd: MCP server 'docs' (${closedUrl}) cannot be used:`);
  });

  it('serve --allow-partial starts without it, says so, and /health/ready shows it down with the reason', async () => {
    const server = spawnCrewd(
      [
        'serve',
        crewAt('unreachable-mcp', 'crew.yaml'),
        '--allow-partial',
        '--port',
        '0',
        '--database',
        join(tempDir(), 'crewd.db'),
      ],
      { env: { ...env(), CREWD_ORG_TOKEN: 'crewd_test_organization_token_0001' } },
    );
    let stderr = '';
    server.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = finished(server);
    try {
      const [, url] = await waitForOutput(server, /at (http:\/\/127\.0\.0\.1:\d+)\n/);
      const ready = await fetch(`${url}/health/ready`);

      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { tools: unknown[] }).tools).toContainEqual({
        source: "MCP server 'docs'",
        up: false,
        reason: 'connection failed (ECONNREFUSED)',
      });
      expect(stderr).toContain(
        `warning: starting without MCP server 'docs' (${closedUrl}), which cannot be used:`,
      );
    } finally {
      server.kill('SIGTERM');
      await exit;
    }
  });
});
