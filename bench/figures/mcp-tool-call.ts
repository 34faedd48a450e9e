// Figure 8: what crewd adds to one MCP tool call, over the same call made directly with the MCP SDK's client on a
// second connection to the same server program: over stdio (a server per connection) or, with
// BENCH_MCP_TRANSPORT=http, over Streamable HTTP (one server on loopback, a session per connection).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig } from '../../src/domain/crew.ts';
import { createToolBox } from '../../src/engine/tool-box.ts';
import { createMcpToolSource } from '../../src/tools/mcp/index.ts';
import { runFigure } from '../lib/figure-main.ts';
import { alternateRounds } from '../lib/alternate-rounds.ts';
import { median, spread } from '../lib/stats.ts';

const overHttp = process.env.BENCH_MCP_TRANSPORT === 'http';
const figure = `8 MCP tool call, ${overHttp ? 'Streamable HTTP' : 'stdio'}`;
const target = '<= 1 ms';
const stdioServer = join(import.meta.dirname, '../../examples/tools-crew/mcp/weather-lookup.mjs');
const httpServer = join(import.meta.dirname, '../lib/weather-http-server.mjs');

/** How both sides reach the server: crewd's config for it and the SDK client's transport. */
interface Connection {
  readonly config: McpServerConfig;
  transport(): Transport;
  close(): Promise<void>;
}

async function connection(): Promise<Connection> {
  if (!overHttp) {
    return {
      config: { kind: 'stdio', command: process.execPath, args: [stdioServer], env: {} },
      transport: () => new StdioClientTransport({ command: process.execPath, args: [stdioServer] }),
      close: () => Promise.resolve(),
    };
  }
  const child = spawn(process.execPath, [httpServer], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await firstLine(child);
  return {
    config: { kind: 'http', url, headers: {} },
    transport: () => new StreamableHTTPClientTransport(new URL(url)),
    async close() {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function firstLine(child: ChildProcess): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  const ended = once(child, 'exit').then(() => {
    throw new Error('the weather server ended before it listened');
  });
  const line = await Promise.race([once(lines, 'line').then(([text]) => String(text)), ended]);
  lines.close();
  return line;
}

runFigure({ figure, metric: 'crewd minus SDK client, per call', target }, async ({ quick }) => {
  const server = await connection();
  const source = createMcpToolSource('weather', server.config, { env: { PATH: process.env.PATH } });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await source.open();
  await client.connect(server.transport());
  try {
    const tool = source.find('weather.forecast');
    if (tool === undefined) throw new Error('the weather server did not list its forecast tool');
    const box = createToolBox([tool], { executionId: 'bench', taskId: 'bench', agent: 'bench' });
    const signal = new AbortController().signal;
    let nextId = 0;
    const viaCrewd = async (): Promise<void> => {
      nextId += 1;
      const text = await box.run(
        { id: `call_${nextId}`, name: 'weather_forecast', input: { city: 'Lisbon' } },
        signal,
      );
      if (!text.startsWith('Lisbon')) throw new Error(`unexpected answer: ${text}`);
    };
    const direct = async (): Promise<void> => {
      const result = await client.callTool({ name: 'forecast', arguments: { city: 'Lisbon' } });
      if (result.isError === true) throw new Error('the direct call failed');
    };

    // Calls alternate one by one, so noise from another process lands on both sides alike.
    const rounds = quick ? 3 : 15;
    const perRound = quick ? 50 : 200;
    const medians = await alternateRounds(viaCrewd, direct, { warmup: quick ? 50 : 300, rounds, perRound });
    const crewdMedians = medians.measured;
    const directMedians = medians.baseline;
    const overheads = crewdMedians.map((ms, round) => ms - directMedians[round]!);
    const overhead = spread(overheads);
    const baselineMs = median(directMedians);
    return [
      {
        figure,
        metric: 'crewd minus SDK client, per call',
        unit: 'ms',
        value: overhead.median,
        range: overhead,
        baseline: baselineMs,
        baselineLabel: "the MCP SDK's client calling the same server program",
        ratio: median(crewdMedians) / baselineMs,
        target,
        met: overhead.median <= 1,
        note: `crewd median ${median(crewdMedians).toFixed(3)} ms; ${rounds} rounds of ${perRound} calls`,
      },
    ];
  } finally {
    await client.close();
    await source.close();
    await server.close();
  }
});
