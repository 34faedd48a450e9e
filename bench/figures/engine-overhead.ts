// Figure 1: what the engine adds to a 3-task sequential crew run in-process, over three direct model calls; and per
// delegation, to the same tasks led by a manager that delegates each one, over the nine calls that makes.
import { loadCrew } from '../../src/crew/load-crew.ts';
import { runCrew } from '../../src/engine/crew-process.ts';
import { createModelResolver } from '../../src/llm/resolve-model.ts';
import { toolRegistryOf } from '../../src/engine/tool.ts';
import { baselineLabels, createBaselineRun } from '../lib/baseline-run.ts';
import { crewDirs } from '../lib/crew-dirs.ts';
import { createHierarchicalBaselineRun } from '../lib/hierarchical-baseline-run.ts';
import { startFakeModel } from '../lib/fake-model.ts';
import { runFigure } from '../lib/figure-main.ts';
import { median, spread } from '../lib/stats.ts';

const figure = '1 engine overhead';
const target = '<= 2 ms';
const hierarchicalTarget = '<= 1 ms per delegation';
const delegationsPerRun = 3;

type Run = (topic: string) => Promise<unknown>;

interface Pairing {
  readonly overhead: ReturnType<typeof spread>;
  readonly engineMs: number;
  readonly baselineMs: number;
  readonly rounds: number;
  readonly perRound: number;
}

/** Times `engine` against `baseline`, alternating runs one by one so noise from elsewhere lands on both alike. */
async function pair(engine: Run, baseline: Run, quick: boolean): Promise<Pairing> {
  const warmup = quick ? 20 : 100;
  for (let index = 0; index < warmup; index += 1) {
    await engine('tides');
    await baseline('tides');
  }
  const rounds = quick ? 3 : 15;
  const perRound = quick ? 10 : 40;
  const engineMedians: number[] = [];
  const baselineMedians: number[] = [];
  const overheads: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const engineTimes: number[] = [];
    const baselineTimes: number[] = [];
    for (let index = 0; index < perRound; index += 1) {
      const both = [
        [engine, engineTimes],
        [baseline, baselineTimes],
      ] as const;
      for (const [run, times] of index % 2 === 0 ? both : [...both].reverse()) {
        const started = performance.now();
        await run('tides');
        times.push(performance.now() - started);
      }
    }
    engineMedians.push(median(engineTimes));
    baselineMedians.push(median(baselineTimes));
    overheads.push(median(engineTimes) - median(baselineTimes));
  }
  return {
    overhead: spread(overheads),
    engineMs: median(engineMedians),
    baselineMs: median(baselineMedians),
    rounds,
    perRound,
  };
}

runFigure({ figure, metric: 'runCrew minus baseline, per run', target }, async ({ quick }) => {
  const model = await startFakeModel();
  try {
    const engineFor = async (crewDir: string): Promise<Run> => {
      const crew = await loadCrew(crewDir, { warn: () => undefined });
      const models = createModelResolver({
        env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-bench-key' },
        baseDir: crewDir,
      });
      const tools = toolRegistryOf([]);
      return async (topic) => {
        const outcome = await runCrew({
          executionId: topic,
          crew,
          inputs: { topic },
          checkpoint: { outputs: [], feedback: [] },
          models,
          tools,
          defaultModel: undefined,
          signal: new AbortController().signal,
          onEvent: () => undefined,
        });
        if (outcome.kind !== 'completed') throw new Error(`the crew ended ${outcome.kind}`);
      };
    };

    const sequential = await pair(await engineFor(crewDirs.threeTask), createBaselineRun(model.url), quick);
    const hierarchical = await pair(
      await engineFor(crewDirs.hierarchical),
      createHierarchicalBaselineRun(model.url),
      quick,
    );
    const perDelegation = {
      median: hierarchical.overhead.median / delegationsPerRun,
      min: hierarchical.overhead.min / delegationsPerRun,
      max: hierarchical.overhead.max / delegationsPerRun,
      rounds: hierarchical.overhead.rounds,
    };
    return [
      {
        figure,
        metric: 'runCrew minus baseline, per run',
        unit: 'ms',
        value: sequential.overhead.median,
        range: sequential.overhead,
        baseline: sequential.baselineMs,
        baselineLabel: `3 direct calls through ${baselineLabels['crewd-client']}`,
        ratio: sequential.engineMs / sequential.baselineMs,
        target,
        met: sequential.overhead.median <= 2,
        note: `runCrew median ${sequential.engineMs.toFixed(2)} ms; ${sequential.rounds} rounds of ${sequential.perRound} runs`,
      },
      {
        figure: `${figure}, hierarchical`,
        metric: 'runCrew minus baseline, per delegation',
        unit: 'ms',
        value: perDelegation.median,
        range: perDelegation,
        baseline: hierarchical.baselineMs,
        baselineLabel: `the same 9 calls (3 delegations) through ${baselineLabels['crewd-client']}`,
        ratio: hierarchical.engineMs / hierarchical.baselineMs,
        target: hierarchicalTarget,
        met: perDelegation.median <= 1,
        note:
          `runCrew median ${hierarchical.engineMs.toFixed(2)} ms for 3 manager-led tasks; ` +
          `${hierarchical.rounds} rounds of ${hierarchical.perRound} runs`,
      },
    ];
  } finally {
    await model.stop();
  }
});
