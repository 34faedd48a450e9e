// Figure 4b: what 10,000 executions paused for human input add to the server's RSS. A paused execution should
// be a row in the store and nothing in memory.
import { crewDirs } from '../lib/crew-dirs.ts';
import { crewdClient } from '../lib/crewd-client.ts';
import { profileArgs, startCrewdServer } from '../lib/crewd-server.ts';
import { startFakeModel } from '../lib/fake-model.ts';
import { runFigure } from '../lib/figure-main.ts';
import { rssOf, sampleFor } from '../lib/proc-readings.ts';
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
    // The first warm-up runs the server's code paths and fills its pools and caches; the second brings V8's young
    // generation to the size any sustained load gives it (it doubles up to 2 x 16 MB and stays there), so the
    // reading as it stands compares a warm server with the same server holding the paused executions.
    const warmup = quick ? 20 : 200;
    const loadWarmup = quick ? 30 : 1000;
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
        const settledRss = async (): Promise<number> => {
          await new Promise((done) => setTimeout(done, settleMs * 3));
          return median(await sampleFor(() => rssOf(server.pid), settleMs * 2));
        };
        await runConcurrently(warmup, 50, pause);
        const idleCollected = await server.collectGarbage();
        await runConcurrently(loadWarmup, 50, pause);
        const idle = await settledRss();
        const before = await server.heapSpaces();

        const started = performance.now();
        const ids: string[] = [];
        await runConcurrently(count, 50, async () =>
          ids.push(await client.kickoff({ inputs: { topic: 'tides' } })),
        );
        await runConcurrently(ids.length, 50, (index) =>
          client.waitForState(ids[index]!, ['PAUSED'], 120_000),
        );
        const seconds = (performance.now() - started) / 1000;
        const paused = await settledRss();
        const after = await server.heapSpaces();
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
            baselineLabel: `server RSS before them, after warm-ups of ${warmup} and ${loadWarmup} paused executions`,
            ratio: null,
            target,
            met: added <= targetMb,
            note:
              `${label} kicked off and paused in ${seconds.toFixed(1)} s; server RSS ${mb(paused).toFixed(0)} MB ` +
              'after; both read as they stand, 3 s after the last request (garbage not yet collected counts); ' +
              `V8 young generation ${mb(before.new_space ?? 0).toFixed(0)} -> ${mb(after.new_space ?? 0).toFixed(0)} MB, ` +
              `old generation ${mb(before.old_space ?? 0).toFixed(0)} -> ${mb(after.old_space ?? 0).toFixed(0)} MB`,
          },
          {
            figure,
            metric: 'the same, both readings after a full GC',
            unit: 'MB',
            value: addedCollected,
            baseline: mb(idleCollected.rss),
            baselineLabel: `server RSS before them, right after a full GC (before the ${loadWarmup} warm-up)`,
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
