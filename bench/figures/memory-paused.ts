// Figure 4b: what 10,000 executions paused for human input add to the server's RSS. A paused execution should
// be a row in the store and nothing in memory.
import { crewDirs } from '../lib/crew-dirs.ts';
import { crewdClient } from '../lib/crewd-client.ts';
import { profileArgs, startCrewdServer } from '../lib/crewd-server.ts';
import { startFakeModel } from '../lib/fake-model.ts';
import { runFigure } from '../lib/figure-main.ts';
import { rssOf, sampleFor } from '../lib/rss.ts';
import { runConcurrently } from '../lib/run-concurrently.ts';
import { median } from '../lib/stats.ts';

const figure = '4 memory, paused';
const metric = 'RSS added by 10,000 paused executions';
const target = '<= 20 MB';
const fullCount = 10_000;

runFigure({ figure, metric, target }, async ({ quick, profileDir }) => {
  const count = quick ? 2000 : fullCount;
  const model = await startFakeModel();
  try {
    const server = await startCrewdServer({
      crewDir: crewDirs.signOff,
      modelUrl: model.url,
      nodeArgs: profileArgs(profileDir, 'memory-paused'),
    });
    const client = crewdClient(server.url, 64);
    try {
      const pause = async (): Promise<string> => {
        const id = await client.kickoff({ inputs: { topic: 'tides' } });
        await client.waitForState(id, ['PAUSED']);
        return id;
      };
      // Warm-up: the server's code paths, pools and caches, before the baseline reading.
      await runConcurrently(200, 50, pause);
      await new Promise((done) => setTimeout(done, 2000));
      const idle = median(await sampleFor(() => rssOf(server.pid), 1000));

      const started = performance.now();
      const ids: string[] = [];
      await runConcurrently(count, 50, async () =>
        ids.push(await client.kickoff({ inputs: { topic: 'tides' } })),
      );
      await runConcurrently(ids.length, 50, (index) => client.waitForState(ids[index]!, ['PAUSED'], 120_000));
      const seconds = (performance.now() - started) / 1000;
      await new Promise((done) => setTimeout(done, 3000));
      const paused = median(await sampleFor(() => rssOf(server.pid), 2000));

      const added = ((paused - idle) / 2 ** 20) * (fullCount / count);
      return [
        {
          figure,
          metric,
          unit: 'MB',
          value: added,
          baseline: idle / 2 ** 20,
          baselineLabel: 'server RSS before, after a warm-up of 200 paused executions',
          ratio: null,
          target,
          met: added <= 20,
          note:
            (count === fullCount
              ? ''
              : `projected from ${count.toLocaleString('en-US')} paused executions; `) +
            `${count.toLocaleString('en-US')} kicked off and paused in ${seconds.toFixed(1)} s; ` +
            `server RSS ${(paused / 2 ** 20).toFixed(0)} MB after`,
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
