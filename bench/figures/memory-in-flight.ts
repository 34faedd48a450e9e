// Figure 4a: RSS that each in-flight execution adds to the server, with 1,000 executions waiting on a slow model,
// beside the same number of baseline runs waiting in a fresh process of their own.
import { fileURLToPath } from 'node:url';
import { crewDirs } from '../lib/crew-dirs.ts';
import { crewdClient } from '../lib/crewd-client.ts';
import { profileArgs, startCrewdServer } from '../lib/crewd-server.ts';
import { slowAnswers, startFakeModel, type FakeModelProcess } from '../lib/fake-model.ts';
import { runFigure } from '../lib/figure-main.ts';
import { rssOf, sampleFor } from '../lib/proc-readings.ts';
import { runConcurrently } from '../lib/run-concurrently.ts';
import { spawnScript } from '../lib/spawn-script.ts';
import { median } from '../lib/stats.ts';

const figure = '4 memory, in flight';
const metric = 'RSS per execution waiting on the model';
const target = '<= 200 KB';
// Starting 1,000 executions takes longer than 2 s on this machine, so with a 2 s model the first would finish
// before the last began. The model holds its answers instead, until the reading is taken and the server stopped.
const slowTopic = `tides ${slowAnswers(60_000)}`;

/** Resolves once `count` more slow calls than `before` have reached the model. */
async function slowCallsReached(model: FakeModelProcess, before: number, count: number): Promise<void> {
  const deadline = performance.now() + 30_000;
  while ((await model.stats()).slowReceived < before + count) {
    if (performance.now() > deadline) throw new Error(`fewer than ${count} model calls arrived in time`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

runFigure({ figure, metric, target }, async ({ quick, profileDir }) => {
  const inFlight = quick ? 100 : 1000;
  // How long readings settle and are sampled for; a quick run only checks that the figure works.
  const settleMs = quick ? 300 : 1000;
  const model = await startFakeModel();
  try {
    const server = await startCrewdServer({
      crewDir: crewDirs.threeTask,
      modelUrl: model.url,
      // Every execution must be running, not queued; on stop, in-flight model calls need no grace period.
      env: { CREWD_CONCURRENCY: String(inFlight * 2), CREWD_SHUTDOWN_GRACE_MS: '0' },
      gcHook: true,
      nodeArgs: profileArgs(profileDir, 'memory-in-flight'),
    });
    const client = crewdClient(server.url);
    let serverIdle: number;
    let serverLoaded: number;
    let serverLoadedCollected: number;
    try {
      await runConcurrently(quick ? 20 : 200, 50, async () => {
        await client.waitForEnd(await client.kickoff({ inputs: { topic: 'tides' } }));
      });
      await server.collectGarbage();
      await new Promise((done) => setTimeout(done, settleMs));
      serverIdle = median(await sampleFor(() => rssOf(server.pid), settleMs));
      const before = (await model.stats()).slowReceived;
      await runConcurrently(inFlight, 50, () => client.kickoff({ inputs: { topic: slowTopic } }));
      await slowCallsReached(model, before, inFlight);
      // Every execution now waits on its first model call.
      serverLoaded = median(await sampleFor(() => rssOf(server.pid), settleMs));
      serverLoadedCollected = (await server.collectGarbage()).rss;
    } finally {
      await client.close();
      await server.stop();
    }

    const baselineProcess = spawnScript(
      fileURLToPath(new URL('../lib/baseline-memory-main.ts', import.meta.url)),
      {
        args: [model.url, String(inFlight), slowTopic, String(settleMs)],
        nodeArgs: ['--expose-gc'],
      },
    );
    let baselinePerRun: number;
    let baselineCollectedPerRun: number;
    try {
      await baselineProcess.next('warm');
      const before = (await model.stats()).slowReceived;
      baselineProcess.send({ type: 'go' });
      await slowCallsReached(model, before, inFlight);
      baselineProcess.send({ type: 'sample' });
      const reading = await baselineProcess.next<{
        type: string;
        idle: number;
        loaded: number;
        loadedCollected: number;
      }>('rss');
      baselinePerRun = (reading.loaded - reading.idle) / inFlight / 1024;
      baselineCollectedPerRun = (reading.loadedCollected - reading.idle) / inFlight / 1024;
    } finally {
      await baselineProcess.stop();
    }

    const perExecution = (serverLoaded - serverIdle) / inFlight / 1024;
    const collectedPerExecution = (serverLoadedCollected - serverIdle) / inFlight / 1024;
    return [
      {
        figure,
        metric,
        unit: 'KB',
        value: perExecution,
        baseline: baselinePerRun,
        baselineLabel: `RSS per baseline run, ${inFlight} waiting in a fresh process`,
        ratio: baselinePerRun > 0 ? perExecution / baselinePerRun : null,
        target,
        met: perExecution <= 200,
        note:
          `${inFlight} executions at once, each waiting on its first model call; server RSS ${(serverIdle / 2 ** 20).toFixed(0)} MB idle, ` +
          `${(serverLoaded / 2 ** 20).toFixed(0)} MB with them in flight; after a full GC ` +
          `${collectedPerExecution.toFixed(0)} KB per execution (baseline ${baselineCollectedPerRun.toFixed(0)} KB)`,
      },
    ];
  } finally {
    await model.stop();
  }
});
