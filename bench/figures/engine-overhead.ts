// Figure 1: what the engine adds to a 3-task sequential crew run in-process, over three direct model calls.
import { loadCrew } from '../../src/crew/load-crew.ts';
import { runCrew } from '../../src/engine/run-crew.ts';
import { createModelResolver } from '../../src/llm/resolve-model.ts';
import { toolRegistryOf } from '../../src/engine/tool.ts';
import { baselineLabels, createBaselineRun } from '../lib/baseline-run.ts';
import { crewDirs } from '../lib/crew-dirs.ts';
import { startFakeModel } from '../lib/fake-model.ts';
import { runFigure } from '../lib/figure-main.ts';
import { median, spread } from '../lib/stats.ts';

const figure = '1 engine overhead';
const target = '<= 2 ms';

runFigure({ figure, metric: 'runCrew minus baseline, per run', target }, async ({ quick }) => {
  const model = await startFakeModel();
  try {
    const crew = await loadCrew(crewDirs.threeTask, { warn: () => undefined });
    const models = createModelResolver({
      env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-bench-key' },
      baseDir: crewDirs.threeTask,
    });
    const tools = toolRegistryOf([]);
    const engine = async (topic: string): Promise<void> => {
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
    const baseline = createBaselineRun(model.url);

    const warmup = quick ? 20 : 100;
    for (let index = 0; index < warmup; index += 1) {
      await engine('tides');
      await baseline('tides');
    }

    // Runs alternate one by one, so a burst of noise from another process lands on both sides alike.
    const rounds = quick ? 3 : 15;
    const perRound = quick ? 10 : 40;
    const engineMedians: number[] = [];
    const baselineMedians: number[] = [];
    const overheads: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const engineTimes: number[] = [];
      const baselineTimes: number[] = [];
      for (let index = 0; index < perRound; index += 1) {
        const pair = [
          [engine, engineTimes],
          [baseline, baselineTimes],
        ] as const;
        for (const [run, times] of index % 2 === 0 ? pair : [...pair].reverse()) {
          const started = performance.now();
          await run('tides');
          times.push(performance.now() - started);
        }
      }
      engineMedians.push(median(engineTimes));
      baselineMedians.push(median(baselineTimes));
      overheads.push(median(engineTimes) - median(baselineTimes));
    }

    const overhead = spread(overheads);
    const baselineMs = median(baselineMedians);
    return [
      {
        figure,
        metric: 'runCrew minus baseline, per run',
        unit: 'ms',
        value: overhead.median,
        range: overhead,
        baseline: baselineMs,
        baselineLabel: `3 direct calls through ${baselineLabels['crewd-client']}`,
        ratio: median(engineMedians) / baselineMs,
        target,
        met: overhead.median <= 2,
        note: `runCrew median ${median(engineMedians).toFixed(2)} ms; ${rounds} rounds of ${perRound} runs`,
      },
    ];
  } finally {
    await model.stop();
  }
});
