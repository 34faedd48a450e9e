// Figure 20: figure 2's workload (kickoff to SUCCESS over HTTP, SQLite, 50 in flight) on one crew of a server
// serving 100, beside the same crew served alone by another server, rounds alternating in the same run.
import { crewDirs } from '../lib/crew-dirs.ts';
import { crewdClient } from '../lib/crewd-client.ts';
import { profileArgs, startCrewdServer, type CrewdServer } from '../lib/crewd-server.ts';
import { startFakeModel } from '../lib/fake-model.ts';
import { runFigure } from '../lib/figure-main.ts';
import { manyCrews } from '../lib/many-crews.ts';
import { runFor } from '../lib/run-concurrently.ts';
import { median, spread } from '../lib/stats.ts';

const figure = '20 throughput, 1 crew of 100';
const metric = 'kickoff to SUCCESS, 50 in flight, one crew among 100';
const target = '>= 0.9x (within noise)';
const inFlight = 50;

runFigure({ figure, metric, target }, async ({ quick, profileDir }) => {
  const model = await startFakeModel();
  // The measured crew is the three-task crew, served at /crews/three-task beside 99 copies of it.
  const others = manyCrews(99);
  const servers: CrewdServer[] = [];
  try {
    const alone = await startCrewdServer({
      crewDir: crewDirs.threeTask,
      modelUrl: model.url,
      nodeArgs: profileArgs(profileDir, 'many-crews-alone'),
    });
    servers.push(alone);
    const among = await startCrewdServer({
      crewDir: crewDirs.threeTask,
      moreCrewDirs: others.dirs,
      modelUrl: model.url,
      nodeArgs: profileArgs(profileDir, 'many-crews-among'),
    });
    servers.push(among);
    const aloneClient = crewdClient(alone.url);
    const amongClient = crewdClient(among.url, 256, '/crews/three-task');
    try {
      let failures = 0;
      const execution = (client: typeof aloneClient) => async (): Promise<void> => {
        const state = await client.waitForEnd(await client.kickoff({ inputs: { topic: 'tides' } }));
        if (state !== 'SUCCESS') failures += 1;
      };
      const rate = async (run: () => Promise<void>, ms: number): Promise<number> => {
        const { completed, elapsedMs } = await runFor(ms, inFlight, run);
        return (completed / elapsedMs) * 1000;
      };
      const roundMs = quick ? 700 : 2000;
      const rounds = quick ? 2 : 6;
      await rate(execution(aloneClient), quick ? 300 : 2000);
      await rate(execution(amongClient), quick ? 300 : 2000);
      failures = 0;
      const amongRates: number[] = [];
      const aloneRates: number[] = [];
      for (let round = 0; round < rounds; round += 1) {
        // Alternated, so noise from another process lands on both alike.
        const pair = [
          [execution(amongClient), amongRates],
          [execution(aloneClient), aloneRates],
        ] as const;
        for (const [run, rates] of round % 2 === 0 ? pair : [...pair].reverse())
          rates.push(await rate(run, roundMs));
      }
      const measured = spread(amongRates);
      const baseline = median(aloneRates);
      const ratio = measured.median / baseline;
      return [
        {
          figure,
          metric,
          unit: '/s',
          value: measured.median,
          range: measured,
          baseline,
          baselineLabel: 'the same crew served alone by another server, rounds alternating',
          ratio,
          target,
          met: failures === 0 && ratio >= 0.9,
          note:
            `${rounds} rounds of ${roundMs / 1000} s each side; the other 99 crews are copies of crews/three-task, idle` +
            (failures === 0 ? '' : `; ${failures} executions did not succeed`),
        },
      ];
    } finally {
      await aloneClient.close();
      await amongClient.close();
    }
  } finally {
    for (const server of servers) await server.stop();
    others.remove();
    await model.stop();
  }
});
