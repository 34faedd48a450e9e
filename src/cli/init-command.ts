import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { loadCrew } from '../crew/load-crew.ts';
import { CrewdError } from '../domain/errors.ts';
import type { ChatModel, ChatRequest } from '../llm/chat-model.ts';
import { createReplayRecorder, recordTo } from '../llm/recording-model.ts';
import { toolRegistryOf } from '../engine/tool.ts';
import type { CliContext } from './cli-context.ts';
import { runApprovingAll } from './run-to-completion.ts';
import type { Review } from './run-to-completion.ts';
import { starterAnswers, starterFiles, starterInputs } from './starter-crew.ts';

const replayFile = 'starter-crew.replay.json';

/** `crewd init <dir>`: writes a crew that runs offline at once, and says what to do next. */
export function registerInitCommand(program: Command, context: CliContext): void {
  program
    .command('init')
    .description('write a new crew that runs offline at once (two agents, a review, structured output)')
    .argument('<dir>', 'the directory to write it to (created if missing)')
    .action(async (dir: string) => {
      await writeStarterCrew(resolve(dir));
      const inputs = `'${JSON.stringify(starterInputs)}'`;
      context.stderr.write(`Wrote a crew to ${dir}: crew.yaml, agents.yaml, tasks.yaml and ${replayFile}\n`);
      context.stdout.write(
        `Next:\n` +
          `  npx crewd run ${dir} --inputs ${inputs}     # runs it once here; answer the review with y\n` +
          `  npx crewd serve ${dir}                                      # serves it over HTTP; prints a token\n` +
          `  npx crewd kickoff --inputs ${inputs} --wait --token <token>   # in another terminal\n`,
      );
    });
}

async function writeStarterCrew(dir: string): Promise<void> {
  const taken = [...Object.keys(starterFiles), replayFile].filter((name) => existsSync(join(dir, name)));
  if (taken.length > 0) {
    throw new CrewdError(
      'VALIDATION_ERROR',
      `${dir} already has ${taken.join(', ')}; choose an empty directory`,
    );
  }
  await mkdir(dir, { recursive: true });
  for (const [name, text] of Object.entries(starterFiles)) await writeFile(join(dir, name), text, 'utf8');
  await recordReplay(dir);
}

/**
 * The reviews each recorded run gives: the outline approved at once or after one rejection, with and without
 * feedback. The replay model answers any feedback text where a recording has some, so these cover every first run
 * with the starter inputs that sends the outline back at most once; anything else gets the offline stand-in.
 */
const recordedReviews: readonly (readonly Review[])[] = [
  [],
  [{ approved: true, feedback: 'Looks good.' }],
  [{ approved: false, feedback: 'Make it more concrete.' }],
  [
    { approved: false, feedback: 'Make it more concrete.' },
    { approved: true, feedback: 'Good, go ahead.' },
  ],
];

/**
 * Runs the new crew against the starter answers once per review path, recording every request with its answer:
 * the replay file then matches exactly what the engine asks, whatever its prompts look like.
 */
async function recordReplay(dir: string): Promise<void> {
  const crew = await loadCrew(dir, {
    warn: (message) => {
      throw new CrewdError('INTERNAL', `The starter crew does not load cleanly: ${message}`);
    },
  });
  const starter: ChatModel = {
    id: `replay/${replayFile}`,
    generate: (request) => {
      const text = answerFor(request);
      // About four characters a token, so the replayed runs show plausible usage.
      const promptChars = request.messages.reduce((sum, message) => sum + message.content.length, 0);
      const usage = {
        promptTokens: Math.ceil(promptChars / 4),
        completionTokens: Math.ceil(text.length / 4),
      };
      return Promise.resolve({ text, toolCalls: [], usage });
    },
  };
  const recorder = createReplayRecorder(join(dir, replayFile));
  const model = recordTo(starter, recorder);
  for (const reviews of recordedReviews) {
    await runApprovingAll({
      executionId: 'init',
      crew,
      inputs: starterInputs,
      model,
      tools: toolRegistryOf([]),
      reviews,
    });
  }
}

function answerFor(request: ChatRequest): string {
  const prompt = request.messages.find((message) => message.role === 'user')?.content ?? '';
  const match = starterAnswers.find(({ task }) => prompt.includes(`Current task: ${task}`));
  if (match === undefined)
    throw new CrewdError('INTERNAL', 'The starter crew asked for an answer it does not have');
  return match.answer;
}
