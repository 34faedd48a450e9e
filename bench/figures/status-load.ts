// Figure 3: GET /status/{id} under 50 connections, beside the trivial GET / on the same server.
import { crewDirs } from '../lib/crew-dirs.ts';
import { crewdClient } from '../lib/crewd-client.ts';
import { benchToken, profileArgs, startCrewdServer } from '../lib/crewd-server.ts';
import { startFakeModel } from '../lib/fake-model.ts';
import { runFigure } from '../lib/figure-main.ts';
import { generateLoad } from '../lib/generate-load.ts';
import type { LoadResult } from '../lib/load-generator-main.ts';
import { percentile, spread } from '../lib/stats.ts';

const figure = '3 GET /status, 50 connections';
const connections = 50;

runFigure({ figure, metric: 'requests/s', target: '>= 0.35x' }, async ({ quick, profileDir }) => {
  const model = await startFakeModel();
  try {
    const server = await startCrewdServer({
      crewDir: crewDirs.threeTask,
      modelUrl: model.url,
      nodeArgs: profileArgs(profileDir, 'status-load'),
    });
    const client = crewdClient(server.url);
    try {
      const id = await client.kickoff({ inputs: { topic: 'tides' } });
      const state = await client.waitForEnd(id);
      if (state !== 'SUCCESS') throw new Error(`the execution to read ended ${state}`);
      const load = (path: string, durationMs: number, headers: Record<string, string> = {}) =>
        generateLoad({ origin: server.url, path, headers, connections, durationMs });
      const statusPath = `/status/${id}`;
      const auth = { authorization: `Bearer ${benchToken}` };

      await load('/', quick ? 300 : 1000);
      await load(statusPath, quick ? 300 : 1000, auth);
      const durationMs = quick ? 1500 : 10_000;
      const trivial = await load('/', durationMs);
      const status = await load(statusPath, durationMs, auth);

      const rate = (result: LoadResult): number => result.requests / result.seconds;
      const statusRate = rate(status);
      const trivialRate = rate(trivial);
      const perSecond = spread(status.perSecond);
      const statusP99 = percentile(status.latencies, 99);
      const trivialP99 = percentile(trivial.latencies, 99);
      const clean = status.errors === 0 && status.notOk === 0;
      const seconds = durationMs / 1000;
      const problems = clean ? '' : `; ${status.errors} errors, ${status.notOk} answers not 200`;
      return [
        {
          figure,
          metric: 'GET /status requests/s',
          unit: 'req/s',
          value: statusRate,
          range: perSecond,
          baseline: trivialRate,
          baselineLabel: 'GET / (text Healthy) on the same server, same load',
          ratio: statusRate / trivialRate,
          target: '>= 0.35x',
          met: clean && statusRate / trivialRate >= 0.35,
          note: `${seconds} s each; range is the slowest and fastest second${problems}`,
        },
        {
          figure,
          metric: 'GET /status p99 latency',
          unit: 'ms',
          value: statusP99,
          baseline: trivialP99,
          baselineLabel: 'p99 of GET / on the same server, same load',
          ratio: statusP99 / trivialP99,
          target: '<= 10 ms',
          met: clean && statusP99 <= 10,
          note: `p50 ${percentile(status.latencies, 50).toFixed(2)} ms (GET / p50 ${percentile(trivial.latencies, 50).toFixed(2)} ms)`,
        },
      ];
    } finally {
      await client.close();
      await server.stop();
    }
  } finally {
    await model.stop();
  }
});
