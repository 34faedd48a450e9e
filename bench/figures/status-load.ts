// Figure 3: GET /status/{id} under 50 connections, beside the trivial GET / on the same server.
import { crewDirs } from '../lib/crew-dirs.ts';
import { crewdClient } from '../lib/crewd-client.ts';
import { benchToken, profileArgs, startCrewdServer } from '../lib/crewd-server.ts';
import { startFakeModel } from '../lib/fake-model.ts';
import { runFigure } from '../lib/figure-main.ts';
import { generateLoad } from '../lib/generate-load.ts';
import type { LoadResult } from '../lib/load-generator-main.ts';
import type { FigureRow } from '../lib/figure-row.ts';
import { percentile, spread } from '../lib/stats.ts';

const figure = '3 GET /status, 50 connections';
const connections = 50;

runFigure({ figure, metric: 'requests/s', target: '>= 0.35x' }, async ({ quick, profileDir }) => {
  const model = await startFakeModel();
  try {
    const server = await startCrewdServer({
      crewDir: crewDirs.signOff,
      modelUrl: model.url,
      nodeArgs: profileArgs(profileDir, 'status-load'),
    });
    const client = crewdClient(server.url);
    try {
      // Clients poll an execution while it waits (here for human input) and read it once it has finished: the
      // first is read from the store on every request, the second is immutable and kept in memory.
      const paused = await client.kickoff({ inputs: { topic: 'tides' } });
      const finished = await client.kickoff({ inputs: { topic: 'reefs' } });
      for (const id of [paused, finished]) {
        if ((await client.waitForState(id, ['PAUSED'])) !== 'PAUSED') throw new Error(`${id} did not pause`);
      }
      await client.post('/resume', {
        execution_id: finished,
        task_id: 'draft',
        human_feedback: 'Fine.',
        is_approve: true,
      });
      const state = await client.waitForEnd(finished);
      if (state !== 'SUCCESS') throw new Error(`the execution to read ended ${state}`);

      const load = (path: string, durationMs: number, headers: Record<string, string> = {}) =>
        generateLoad({ origin: server.url, path, headers, connections, durationMs });
      const auth = { authorization: `Bearer ${benchToken}` };
      const warmupMs = quick ? 300 : 1000;
      const durationMs = quick ? 1500 : 10_000;
      await load('/', warmupMs);
      const trivial = await load('/', durationMs);
      const rate = (result: LoadResult): number => result.requests / result.seconds;
      const trivialRate = rate(trivial);
      const trivialP99 = percentile(trivial.latencies, 99);

      const rows = async (label: string, id: string): Promise<FigureRow[]> => {
        await load(`/status/${id}`, warmupMs, auth);
        const status = await load(`/status/${id}`, durationMs, auth);
        const statusRate = rate(status);
        const statusP99 = percentile(status.latencies, 99);
        const clean = status.errors === 0 && status.notOk === 0;
        const problems = clean ? '' : `; ${status.errors} errors, ${status.notOk} answers not 200`;
        return [
          {
            figure,
            metric: `GET /status requests/s, ${label}`,
            unit: 'req/s',
            value: statusRate,
            range: spread(status.perSecond),
            baseline: trivialRate,
            baselineLabel: 'GET / (text Healthy) on the same server, same load',
            ratio: statusRate / trivialRate,
            target: '>= 0.35x',
            met: clean && statusRate / trivialRate >= 0.35,
            note: `${durationMs / 1000} s each; range is the slowest and fastest second${problems}`,
          },
          {
            figure,
            metric: `GET /status p99 latency, ${label}`,
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
      };
      return [...(await rows('paused', paused)), ...(await rows('finished', finished))];
    } finally {
      await client.close();
      await server.stop();
    }
  } finally {
    await model.stop();
  }
});
