// Figure 8: what crewd adds to one MCP tool call (stdio), over the same call made directly with the MCP SDK's client
// on a second connection to a server of the same program.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createToolBox } from '../../src/engine/tool-box.ts';
import { createMcpToolSource } from '../../src/tools/mcp/index.ts';
import { runFigure } from '../lib/figure-main.ts';
import { median, spread } from '../lib/stats.ts';

const figure = '8 MCP tool call, stdio';
const target = '<= 1 ms';
const server = join(import.meta.dirname, '../../examples/tools-crew/mcp/weather-lookup.mjs');

runFigure({ figure, metric: 'crewd minus SDK client, per call', target }, async ({ quick }) => {
  const source = createMcpToolSource(
    'weather',
    { kind: 'stdio', command: process.execPath, args: [server], env: {} },
    { env: { PATH: process.env.PATH } },
  );
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await source.open();
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [server] }));
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

    const warmup = quick ? 50 : 300;
    for (let index = 0; index < warmup; index += 1) {
      await viaCrewd();
      await direct();
    }
    // Calls alternate one by one, so noise from another process lands on both sides alike.
    const rounds = quick ? 3 : 15;
    const perRound = quick ? 50 : 200;
    const overheads: number[] = [];
    const directMedians: number[] = [];
    const crewdMedians: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const crewdTimes: number[] = [];
      const directTimes: number[] = [];
      for (let index = 0; index < perRound; index += 1) {
        const pair = [
          [viaCrewd, crewdTimes],
          [direct, directTimes],
        ] as const;
        for (const [run, times] of index % 2 === 0 ? pair : [...pair].reverse()) {
          const started = performance.now();
          await run();
          times.push(performance.now() - started);
        }
      }
      crewdMedians.push(median(crewdTimes));
      directMedians.push(median(directTimes));
      overheads.push(median(crewdTimes) - median(directTimes));
    }
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
  }
});
