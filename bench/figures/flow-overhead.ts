// Figure 17: what a flow adds around its agents' model calls: a three-method flow whose methods each run one agent
// (runFlow in-process), alternating with the same three calls made directly through crewd's model client.
import { toolRegistryOf } from '../../src/engine/tool.ts';
import { flowFromText } from '../../src/flow/load-flow.ts';
import { MemoryFlowJournal } from '../../src/flow/memory-flow-journal.ts';
import { runFlow } from '../../src/flow/run-flow.ts';
import { createModelResolver } from '../../src/llm/resolve-model.ts';
import { alternateRounds } from '../lib/alternate-rounds.ts';
import { baselineLabels, createBaselineRun } from '../lib/baseline-run.ts';
import { startFakeModel } from '../lib/fake-model.ts';
import { runFigure } from '../lib/figure-main.ts';
import { median, spread } from '../lib/stats.ts';

const figure = '17 flow overhead';
const metric = 'runFlow minus baseline, per method';
const target = '<= 1 ms per method';
const methods = 3;

const agent = (role: string, input: string): string =>
  `{call: agent, with: {role: "${role}", goal: a short plain brief, backstory: Knows the subject., input: "${input}"}}`;

/** Each method's agent gets the earlier answer, as the baseline's calls carry the earlier answers as context. */
const flowYaml = `
name: ThreeAgents
state: {type: dict, default: {topic: tides}}
methods:
  research: {start: true, do: ${agent('Researcher of tides', 'List three facts about ${state.topic}.')}}
  draft: {listen: research, do: ${agent('Writer on tides', 'Draft a one-paragraph brief about ${state.topic}. Context: ${outputs.research.raw}')}}
  summary: {listen: draft, do: ${agent('Writer on tides', 'Summarise in one line the brief about ${state.topic}. Context: ${outputs.draft.raw}')}}
`;

runFigure({ figure, metric, target }, async ({ quick }) => {
  const model = await startFakeModel();
  try {
    const definition = flowFromText(flowYaml, { warn: () => undefined });
    const models = createModelResolver({
      env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-bench-key' },
      baseDir: process.cwd(),
    });
    const tools = toolRegistryOf([]);
    let runs = 0;
    const viaFlow = async (): Promise<void> => {
      runs += 1;
      const outcome = await runFlow({
        definition,
        journal: new MemoryFlowJournal(),
        dependencies: { models, tools, defaultModel: 'openai/bench-model', executionId: `flow-${runs}` },
      });
      if (outcome.status !== 'completed') throw new Error(`the flow ended ${outcome.status}`);
    };
    const baselineRun = createBaselineRun(model.url);
    const direct = async (): Promise<void> => {
      await baselineRun('tides');
    };

    const rounds = quick ? 3 : 15;
    const perRound = quick ? 10 : 40;
    const medians = await alternateRounds(viaFlow, direct, { warmup: quick ? 20 : 100, rounds, perRound });
    const perMethod = medians.measured.map((ms, round) => (ms - medians.baseline[round]!) / methods);
    const overhead = spread(perMethod);
    const flowMs = median(medians.measured);
    const baselineMs = median(medians.baseline);
    return [
      {
        figure,
        metric,
        unit: 'ms',
        value: overhead.median,
        range: overhead,
        baseline: baselineMs,
        baselineLabel: `the same 3 calls through ${baselineLabels['crewd-client']}`,
        ratio: flowMs / baselineMs,
        target,
        met: overhead.median <= 1,
        note: `runFlow median ${flowMs.toFixed(2)} ms for 3 agent methods; ${rounds} rounds of ${perRound} runs`,
      },
    ];
  } finally {
    await model.stop();
  }
});
