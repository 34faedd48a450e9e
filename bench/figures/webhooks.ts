// Figure 6: webhook deliveries per second to a loopback receiver while executions run at full speed, and the
// latency from the model's answer to the webhook's arrival, beside the same payloads POSTed directly.
import { Pool } from 'undici';
import { crewDirs } from '../lib/crew-dirs.ts';
import { crewdClient } from '../lib/crewd-client.ts';
import { profileArgs, startCrewdServer } from '../lib/crewd-server.ts';
import { startFakeModel } from '../lib/fake-model.ts';
import { runFigure } from '../lib/figure-main.ts';
import { runConcurrently } from '../lib/run-concurrently.ts';
import { percentile } from '../lib/stats.ts';
import { startTimedReceiver, wallClock } from '../lib/timed-receiver.ts';

const figure = '6 webhooks';
const inFlight = 50;

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

      // The warm-up also tells how many deliveries one execution makes (task, step and crew webhooks).
      const warmup = 50;
      await runConcurrently(warmup, inFlight, execution);
      await receiver.settle(Number.POSITIVE_INFINITY, 2000);
      const perExecution = receiver.count / warmup;
      if (perExecution === 0) throw new Error('no webhook arrived during the warm-up');
      receiver.reset();

      const executions = quick ? 100 : 300;
      const started = wallClock();
      await runConcurrently(executions, inFlight, execution);
      const executionsDone = wallClock();
      const expected = Math.round(executions * perExecution);
      await receiver.settle(expected, 10_000);
      const delivered = receiver.count;
      const seconds = (receiver.lastArrival - started) / 1000;
      const rate = delivered / seconds;
      const latencies = [...receiver.latencies];
      const lagMs = Math.max(0, receiver.lastArrival - executionsDone);

      // Baseline: the very same payloads POSTed straight to the receiver, as many at once as executions ran.
      const bodies = [...receiver.bodies];
      const pool = new Pool(receiver.url, { connections: inFlight });
      const directLatencies: number[] = [];
      const directMs = await runConcurrently(bodies.length, inFlight, async (index) => {
        const sent = performance.now();
        const response = await pool.request({
          method: 'POST',
          path: '/direct',
          headers: { 'content-type': 'application/json' },
          body: bodies[index]!,
        });
        await response.body.dump();
        directLatencies.push(performance.now() - sent);
      });
      await pool.close();
      const directRate = (bodies.length / directMs) * 1000;

      const lost = delivered < expected ? `; only ${delivered} of ${expected} arrived` : '';
      const p50 = percentile(latencies, 50);
      const p99 = percentile(latencies, 99);
      const directP50 = percentile(directLatencies, 50);
      const directP99 = percentile(directLatencies, 99);
      return [
        {
          figure,
          metric: 'deliveries/s, executions at full speed',
          unit: '/s',
          value: rate,
          baseline: directRate,
          baselineLabel: `the same ${bodies.length} payloads POSTed directly, ${inFlight} at once`,
          ratio: rate / directRate,
          target: '-',
          met: lost === '' ? null : false,
          note:
            `${executions} executions, ${perExecution} deliveries each, ${inFlight} in flight; ` +
            `last delivery ${lagMs.toFixed(0)} ms after the last execution ended${lost}`,
        },
        {
          figure,
          metric: 'model answer to arrival, p50',
          unit: 'ms',
          value: p50,
          baseline: directP50,
          baselineLabel: 'round trip of a direct POST',
          ratio: p50 / directP50,
          target: '-',
          met: null,
        },
        {
          figure,
          metric: 'model answer to arrival, p99',
          unit: 'ms',
          value: p99,
          baseline: directP99,
          baselineLabel: 'round trip of a direct POST',
          ratio: p99 / directP99,
          target: '-',
          met: null,
        },
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
