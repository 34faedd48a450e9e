/**
 * Records examples/research-crew/research-crew.replay.json, the file the bundled example crew answers from
 * offline. Run it after changing the example crew or the engine's prompts:
 *
 *   npx tsx scripts/record-example.ts
 *
 * A fake OpenAI-compatible server on loopback gives canned answers (scripts/example-answers.ts), and the crew
 * runs against it through the real provider code with every answer recorded. Each review path a demo may take
 * is recorded: the outline approved at once, or sent back once or twice first, with and without approval
 * feedback (feedback text itself does not matter on replay). Then every path is replayed offline as a check.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withModel } from '../src/cli/override-model.ts';
import { runToCompletion } from '../src/cli/run-to-completion.ts';
import type { Review } from '../src/cli/run-to-completion.ts';
import { loadCrew } from '../src/crew/load-crew.ts';
import type { CrewDefinition } from '../src/domain/crew.ts';
import { createModelResolver } from '../src/llm/resolve-model.ts';
import type { ModelResolver } from '../src/llm/chat-model.ts';
import { toolRegistryOf } from '../src/engine/tool.ts';
import { startFakeOpenAI } from '../test/support/fake-openai-server.ts';
import { answerExample } from './example-answers.ts';

const crewDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../examples/research-crew');
const replayFile = path.join(crewDir, 'research-crew.replay.json');
const inputs = { topic: 'AI agents', current_year: '2026' };

/** Answers given at the outline's reviews, in order; every path ends with an approval. */
const paths: readonly (readonly Review[])[] = [
  [approve('')],
  [approve('Looks good.')],
  [reject('Make the sections more concrete.'), approve('')],
  [reject('Make the sections more concrete.'), approve('Good, go ahead.')],
  [reject('Too broad.'), reject('Still too broad; focus on what a team should do.'), approve('')],
  [reject('Too broad.'), reject('Still too broad; focus on what a team should do.'), approve('Thanks.')],
];

function approve(feedback: string): Review {
  return { approved: true, feedback };
}

function reject(feedback: string): Review {
  return { approved: false, feedback };
}

async function runPath(
  crew: CrewDefinition,
  models: ModelResolver,
  reviews: readonly Review[],
): Promise<string> {
  const pending = [...reviews];
  const result = await runToCompletion({
    executionId: 'recording',
    crew,
    inputs,
    models,
    tools: toolRegistryOf([]),
    defaultModel: undefined,
    signal: AbortSignal.timeout(60_000),
    onEvent: () => undefined,
    review: (output) => {
      const next = pending.shift();
      if (next === undefined)
        throw new Error(`No review left for ${output.taskId} attempt ${output.attempt}`);
      return Promise.resolve(next);
    },
  });
  if (pending.length > 0) throw new Error(`${pending.length} review(s) were not asked for`);
  return result.outputs.at(-1)?.output ?? '';
}

async function main(): Promise<void> {
  const crew = await loadCrew(crewDir, { warn: (message) => console.warn(message) });
  const fake = await startFakeOpenAI({ respond: answerExample });
  await rm(replayFile, { force: true });
  const recorded: string[] = [];
  try {
    const models = createModelResolver({
      env: { OPENAI_BASE_URL: fake.url },
      baseDir: crewDir,
      recordFile: replayFile,
    });
    const live = withModel(crew, 'openai/canned-example');
    for (const reviews of paths) recorded.push(await runPath(live, models, reviews));
  } finally {
    await fake.close();
  }

  // Replay with other feedback text than was recorded: the crew as shipped must answer every path offline, each
  // from the recording (strict, so a path the file misses fails here instead of getting the offline stand-in).
  const replay = createModelResolver({ env: { CREWD_REPLAY_STRICT: '1' }, baseDir: crewDir });
  for (const [index, reviews] of paths.entries()) {
    const reworded = reviews.map((review) => ({
      ...review,
      feedback: review.feedback && `${review.feedback}!`,
    }));
    const output = await runPath(crew, replay, reworded);
    if (output !== recorded[index]) throw new Error(`Path ${index + 1} replays a different final output`);
  }
  console.log(`Recorded ${paths.length} review paths in ${path.relative(process.cwd(), replayFile)}`);
}

await main();
