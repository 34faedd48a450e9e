// Figure 6: webhook deliveries per second to a loopback receiver while executions run at full speed, and the
// latency from the model's answer to the webhook's arrival with one execution at a time, beside the same payloads
// POSTed directly.
import { Pool } from 'undici';
import { crewDirs } from '../lib/crew-dirs.ts';
import { crewdClient } from '../lib/crewd-client.ts';
import { profileArgs, startCrewdServer } from '../lib/crewd-server.ts';
import { startFakeModel } from '../lib/fake-model.ts';
import type { FigureRow } from '../lib/figure-row.ts';
import { runFigure } from '../lib/figure-main.ts';
import { runConcurrently } from '../lib/run-concurrently.ts';
import { percentile } from '../lib/stats.ts';
import { startTimedReceiver, wallClock } from '../lib/timed-receiver.ts';

const figure = '6 webhooks';
const inFlight = 50;

/** POSTs `bodies` straight to the receiver, `concurrency` at once; resolves with the rate and each round trip. */
async function postDirectly(
  url: string,
  bodies: readonly string[],
  concurrency: number,
): Promise<{ rate: number; latencies: number[] }> {
  const pool = new Pool(url, { connections: concurrency });
  const latencies: number[] = [];
  const elapsedMs = await runConcurrently(bodies.length, concurrency, async (index) => {
    const sent = performance.now();
    const response = await pool.request({
      method: 'POST',
      path: '/direct',
      headers: { 'content-type': 'application/json' },
      body: bodies[index]!,
    });
    await response.body.dump();
    latencies.push(performance.now() - sent);
  });
  await pool.close();
  return { rate: (bodies.length / elapsedMs) * 1000, latencies };
}

runFigure({ figure, metric: 'deliveries/s', target: '-' }, async ({ quick, profileDir }) => {
  const model = await startFakeModel();
  const receiver = await startTimedReceiver();
  try {
    const server = await startCrewdServer({
      crewDir: crewDirs.threeTask,
      modelUrl: model.url,
      env: { CREWD_WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
      nodeArgs: profileArgs(profileDir, 'webhooks'),
    });
    const client = crewdClient(server.url);
    try {
      const hooks = {
        taskWebhookUrl: `${receiver.url}/task`,
        stepWebhookUrl: `${receiver.url}/step`,
        crewWebhookUrl: `${receiver.url}/crew`,
      };
      const execution = async (): Promise<void> => {
        await client.waitForEnd(await client.kickoff({ inputs: { topic: 'tides' }, ...hooks }));
      };
      // The model stamps its answers with its own clock; latencies are corrected for any difference from ours.
      const offset = await model.clockOffset();

      // The warm-up also tells how many deliveries one execution makes (task, step and crew webhooks).
      const warmup = quick ? 10 : 50;
      await runConcurrently(warmup, inFlight, execution);
      await receiver.settle(Number.POSITIVE_INFINITY, 2000);
      const perExecution = receiver.count / warmup;
      if (perExecution === 0) throw new Error('no webhook arrived during the warm-up');

      // Throughput: executions at full speed, every delivery counted until the last one arrives.
      receiver.reset();
      const executions = quick ? 30 : 300;
      const started = wallClock();
      await runConcurrently(executions, inFlight, execution);
      const expected = Math.round(executions * perExecution);
      await receiver.settle(expected, 10_000);
      const delivered = receiver.count;
      const rate = delivered / ((receiver.lastArrival - started) / 1000);
      const loadedLatencies = receiver.latencies.map((latency) => latency + offset);
      const direct = await postDirectly(receiver.url, receiver.bodies, inFlight);

      // Latency: one execution at a time, so the figure is the webhook path, not a queue behind other work.
      receiver.reset();
      const single = quick ? 5 : 50;
      await runConcurrently(single, 1, execution);
      await receiver.settle(Math.round(single * perExecution), 5000);
      const latencies = receiver.latencies.map((latency) => latency + offset);
      const directOne = await postDirectly(receiver.url, receiver.bodies, 1);

      const lost = delivered < expected ? `; only ${delivered} of ${expected} arrived` : '';
      const latencyRow = (p: number): FigureRow => {
        const value = percentile(latencies, p);
        const baseline = percentile(directOne.latencies, p);
        return {
          figure,
          metric: `model answer to arrival, p${p}, 1 in flight`,
          unit: 'ms',
          value,
          baseline,
          baselineLabel: 'round trip of a direct POST of the same payloads, one at a time',
          ratio: value / baseline,
          target: '-',
          met: null,
          note: `${single} executions one after another; with ${inFlight} in flight: p${p} ${percentile(loadedLatencies, p).toFixed(0)} ms`,
        };
      };
      return [
        {
          figure,
          metric: 'deliveries/s, executions at full speed',
          unit: '/s',
          value: rate,
          baseline: direct.rate,
          baselineLabel: `the same ${delivered} payloads POSTed directly, ${inFlight} at once`,
          ratio: rate / direct.rate,
          target: '-',
          met: lost === '' ? null : false,
          note:
            `${executions} executions, ${perExecution} deliveries each, ${inFlight} in flight${lost}; ` +
            `clocks of the model and receiver processes differ by ${offset.toFixed(2)} ms, corrected`,
        },
        latencyRow(50),
        latencyRow(99),
      ];
    } finally {
      await client.close();
      await server.stop();
    }
  } finally {
    await receiver.close();
    await model.stop();
  }
});
