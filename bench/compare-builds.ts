// Figure 2's load (three-task crew, 50 in flight, a fresh SQLite file each) on this checkout's build and another's,
// both servers up at once and 2 s rounds alternating between them, after 8 s of warm-up each. Prints each side's
// CPU per execution and the ratio of each pair of neighbouring rounds: on a shared machine whose speed drifts
// within a minute, the ratio of neighbours moves far less than either side alone.
//
//   npx tsx bench/compare-builds.ts /path/to/other/checkout [rounds]
//
// Both checkouts need a current `dist` (`npm run build`). CROSS_ARGS_THIS / CROSS_ARGS_OTHER add Node options
// to one side (split on spaces): the same checkout twice compares V8 settings.
import { crewDirs, repoRoot } from './lib/crew-dirs.ts';
import { crewdClient } from './lib/crewd-client.ts';
import { startCrewdServer } from './lib/crewd-server.ts';
import { startFakeModel } from './lib/fake-model.ts';
import { cpuMsOf } from './lib/proc-readings.ts';
import { runFor } from './lib/run-concurrently.ts';
import { median } from './lib/stats.ts';

const other = process.argv[2];
if (other === undefined) throw new Error('usage: npx tsx bench/compare-builds.ts <other checkout> [rounds]');
const rounds = Number(process.argv[3] ?? '10');
const nodeArgs = (variable: string): string[] =>
  (process.env[variable] ?? '').split(' ').filter((arg) => arg !== '');

const model = await startFakeModel();
const sides = [
  { name: 'this', root: repoRoot, nodeArgs: nodeArgs('CROSS_ARGS_THIS') },
  { name: 'other', root: other, nodeArgs: nodeArgs('CROSS_ARGS_OTHER') },
].map(async (side) => {
  const server = await startCrewdServer({ crewDir: crewDirs.threeTask, modelUrl: model.url, ...side });
  return { ...side, server, client: crewdClient(server.url), cpuMs: [] as number[], rates: [] as number[] };
});
const started = await Promise.all(sides);
const self = started[0]!;
const another = started[1]!;
type Side = typeof self;

const round = async (side: Side, ms: number): Promise<{ cpuMs: number; rate: number }> => {
  const before = cpuMsOf(side.server.pid);
  const { completed, elapsedMs } = await runFor(ms, 50, async () => {
    const state = await side.client.waitForEnd(await side.client.kickoff({ inputs: { topic: 'tides' } }));
    if (state !== 'SUCCESS') throw new Error(`an execution ended ${state} on ${side.name}`);
  });
  return { cpuMs: (cpuMsOf(side.server.pid) - before) / completed, rate: (completed / elapsedMs) * 1000 };
};
try {
  for (const side of [self, another]) await round(side, 8000);
  for (let index = 0; index < rounds; index += 1) {
    for (const side of index % 2 === 0 ? [self, another] : [another, self]) {
      const { cpuMs, rate } = await round(side, 2000);
      side.cpuMs.push(cpuMs);
      side.rates.push(rate);
    }
  }
  for (const side of [self, another]) {
    const rounded = side.cpuMs.map((ms) => ms.toFixed(2)).join(' ');
    console.log(
      `${side.name} (${side.root}): CPU per execution median ${median(side.cpuMs).toFixed(2)} ms (${rounded}), ` +
        `median ${median(side.rates).toFixed(0)} executions/s`,
    );
  }
  const ratios = self.cpuMs.map((ms, index) => ms / another.cpuMs[index]!);
  console.log(
    `this ÷ other, CPU per execution of neighbouring rounds: median ${median(ratios).toFixed(3)} ` +
      `(${ratios.map((ratio) => ratio.toFixed(2)).join(' ')})`,
  );
} finally {
  for (const side of [self, another]) {
    await side.client.close();
    await side.server.stop();
  }
  await model.stop();
}
