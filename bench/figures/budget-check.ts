// Figure 18: what the budget check before every model call costs. Figure 2's crew over HTTP, batches of executions
// in flight together, with a budget set on the kickoff (never reached) and without one, batches alternating on the
// same server in the same run.
import { crewDirs } from '../lib/crew-dirs.ts';
import { crewdClient } from '../lib/crewd-client.ts';
import { profileArgs, startCrewdServer } from '../lib/crewd-server.ts';
import { startFakeModel } from '../lib/fake-model.ts';
import { runFigure } from '../lib/figure-main.ts';
import { alternateRounds } from '../lib/alternate-rounds.ts';
import { median, spread } from '../lib/stats.ts';

const figure = '18 budget check';
const target = '<= 1.05x';
/** Far more than a run spends: every call is checked, none pauses. */
const budget = { tokens: 1_000_000_000, cost_usd: 1_000_000 };

runFigure(
  { figure, metric: 'with a budget over without, per batch', target },
  async ({ quick, profileDir }) => {
    const model = await startFakeModel();
    try {
      const server = await startCrewdServer({
        crewDir: crewDirs.threeTask,
        modelUrl: model.url,
        nodeArgs: profileArgs(profileDir, 'budget-check'),
      });
      const inFlight = quick ? 20 : 50;
      const http = crewdClient(server.url, inFlight);
      try {
        let topics = 0;
        const batch = (extra: Record<string, unknown>) => async (): Promise<void> => {
          const runs = Array.from({ length: inFlight }, async () => {
            topics += 1;
            const id = await http.kickoff({ inputs: { topic: `topic ${topics}` }, ...extra });
            const state = await http.waitForEnd(id);
            if (state !== 'SUCCESS') throw new Error(`an execution ended ${state}`);
          });
          await Promise.all(runs);
        };
        const rounds = quick ? 3 : 8;
        const perRound = quick ? 2 : 6;
        const medians = await alternateRounds(batch({ budget }), batch({}), {
          warmup: quick ? 1 : 3,
          rounds,
          perRound,
        });
        const ratios = medians.measured.map((ms, round) => ms / medians.baseline[round]!);
        const ratio = spread(ratios);
        return [
          {
            figure,
            metric: `${inFlight} executions in flight, kickoff to SUCCESS, with a budget set`,
            unit: 'ms',
            value: median(medians.measured),
            range: spread(medians.measured),
            baseline: median(medians.baseline),
            baselineLabel: 'the same batch without a budget, alternating on the same server',
            ratio: ratio.median,
            target,
            met: ratio.median <= 1.05,
            note: `three-task crew, fake model; ${rounds} rounds of ${perRound} batches each way; round ratios ${ratio.min.toFixed(3)}–${ratio.max.toFixed(3)}`,
          },
        ];
      } finally {
        await http.close();
        await server.stop();
      }
    } finally {
      await model.stop();
    }
  },
);
