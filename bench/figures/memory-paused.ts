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
const fullCount = 10_000;
const fullTargetMb = 20;
const mb = (bytes: number): number => bytes / 2 ** 20;

runFigure(
  { figure, metric: 'RSS added by paused executions', target: '<= 20 MB' },
  async ({ quick, profileDir }) => {
    const count = quick ? 300 : fullCount;
    const warmup = quick ? 20 : 200;
    // How long readings settle and are sampled for; a quick run only checks that the figure works.
    const settleMs = quick ? 300 : 1000;
    // A quick run pauses fewer executions and holds them to the same target pro rata.
    const targetMb = (fullTargetMb * count) / fullCount;
    const label = count.toLocaleString('en-US');
    const model = await startFakeModel();
    try {
      const server = await startCrewdServer({
        crewDir: crewDirs.signOff,
        modelUrl: model.url,
        gcHook: true,
        nodeArgs: profileArgs(profileDir, 'memory-paused'),
      });
      const client = crewdClient(server.url, 64);
      try {
        const pause = async (): Promise<string> => {
          const id = await client.kickoff({ inputs: { topic: 'tides' } });
          await client.waitForState(id, ['PAUSED']);
          return id;
        };
        // Warm-up: the server's code paths, pools and caches; then the reading before, from a collected heap.
        await runConcurrently(warmup, 50, pause);
        const idleCollected = await server.collectGarbage();
        await new Promise((done) => setTimeout(done, settleMs));
        const idle = median(await sampleFor(() => rssOf(server.pid), settleMs));

        const started = performance.now();
        const ids: string[] = [];
        await runConcurrently(count, 50, async () =>
          ids.push(await client.kickoff({ inputs: { topic: 'tides' } })),
        );
        await runConcurrently(ids.length, 50, (index) =>
          client.waitForState(ids[index]!, ['PAUSED'], 120_000),
        );
        const seconds = (performance.now() - started) / 1000;
        await new Promise((done) => setTimeout(done, settleMs * 3));
        const paused = median(await sampleFor(() => rssOf(server.pid), settleMs * 2));
        const pausedCollected = await server.collectGarbage();

        const added = mb(paused - idle);
        const addedCollected = mb(pausedCollected.rss - idleCollected.rss);
        const heapAdded = mb(pausedCollected.heapUsed - idleCollected.heapUsed);
        const target = `<= ${targetMb} MB`;
        return [
          {
            figure,
            metric: `RSS added by ${label} paused executions`,
            unit: 'MB',
            value: added,
            baseline: mb(idle),
            baselineLabel: `server RSS before them, after a warm-up of ${warmup} paused executions`,
            ratio: null,
            target,
            met: added <= targetMb,
            note:
              `${label} kicked off and paused in ${seconds.toFixed(1)} s; server RSS ${mb(paused).toFixed(0)} MB ` +
              'after, read as it stands (garbage not yet collected counts)',
          },
          {
            figure,
            metric: 'the same, both readings after a full GC',
            unit: 'MB',
            value: addedCollected,
            baseline: mb(idleCollected.rss),
            baselineLabel: 'server RSS before them, right after a full GC',
            ratio: null,
            target: '-',
            met: null,
            note:
              `live JS heap added: ${heapAdded.toFixed(1)} MB; V8 heap reserved ` +
              `${mb(idleCollected.heapTotal).toFixed(0)} -> ${mb(pausedCollected.heapTotal).toFixed(0)} MB`,
          },
        ];
      } finally {
        await client.close();
        await server.stop();
      }
    } finally {
      await model.stop();
    }
  },
);
