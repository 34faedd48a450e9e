import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CrewdError } from '../domain/errors.ts';
import { feedbackSlot } from '../domain/feedback-slot.ts';
import type { ChatRequest, ChatResponse } from './chat-model.ts';
import { replayEntry, writeReplayFile } from './replay-file.ts';
import { createReplayModel } from './replay-model.ts';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crewd-replay-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const never = new AbortController().signal;

function revision(feedback: string): ChatRequest {
  return {
    messages: [
      { role: 'system', content: 'You are an editor.' },
      { role: 'user', content: `Revise the draft.\n${feedbackSlot(feedback)}` },
    ],
    tools: [{ name: 'lookup', description: 'Looks things up', inputSchema: { type: 'object' } }],
  };
}

const revised: ChatResponse = {
  text: 'A shorter draft.',
  toolCalls: [{ id: 'call_1', name: 'lookup', input: { term: 'draft' } }],
  usage: { promptTokens: 20, completionTokens: 4 },
};

async function demoFile(): Promise<string> {
  const path = join(dir, 'demo.json');
  await writeReplayFile(path, {
    version: 1,
    entries: [replayEntry('openai/gpt-4o', revision('Shorter please.'), revised)],
  });
  return path;
}

describe('replay model', () => {
  it('answers a recorded request with the recorded answer', async () => {
    const model = createReplayModel({ id: 'replay/demo.json', filePath: await demoFile() });

    expect(await model.generate(revision('Shorter please.'), never)).toEqual(revised);
    expect(model.id).toBe('replay/demo.json');
  });

  it('answers the same request with other human feedback', async () => {
    const model = createReplayModel({ id: 'replay/demo.json', filePath: await demoFile() });

    expect(await model.generate(revision('Make it longer, with citations.'), never)).toEqual(revised);
  });

  it('reports a miss naming the file and what was asked', async () => {
    const model = createReplayModel({ id: 'replay/demo.json', filePath: await demoFile() });
    const question = `Write about ${'tidal power '.repeat(20)}`;

    const error = await model
      .generate({ messages: [{ role: 'user', content: question }] }, never)
      .catch((failure: unknown) => failure);

    expect(error).toBeInstanceOf(CrewdError);
    expect((error as CrewdError).code).toBe('REPLAY_MISS');
    expect((error as CrewdError).message).toBe(
      `replay file "demo.json" has no answer for: ${question.slice(0, 120)}…`,
    );
    expect((error as CrewdError).message).not.toContain(dir);
  });

  it('reads the file once per model', async () => {
    const path = await demoFile();
    const model = createReplayModel({ id: 'replay/demo.json', filePath: path });
    await model.generate(revision('a'), never);

    await writeFile(path, 'not json any more');

    expect((await model.generate(revision('b'), never)).text).toBe('A shorter draft.');
  });

  it('reports a missing or malformed file as a configuration error without its path', async () => {
    const missing = createReplayModel({ id: 'replay/nope.json', filePath: join(dir, 'nope.json') });
    await expect(missing.generate(revision('a'), never)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: 'replay file "nope.json" was not found',
    });

    await writeFile(join(dir, 'bad.json'), JSON.stringify({ version: 2, entries: [] }));
    const bad = createReplayModel({ id: 'replay/bad.json', filePath: join(dir, 'bad.json') });
    await expect(bad.generate(revision('a'), never)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: 'replay file "bad.json" is not a valid replay file',
    });
  });

  it('rejects with the abort reason when already aborted', async () => {
    const model = createReplayModel({ id: 'replay/demo.json', filePath: await demoFile() });
    const controller = new AbortController();
    const reason = new Error('cancelled');
    controller.abort(reason);

    await expect(model.generate(revision('a'), controller.signal)).rejects.toBe(reason);
  });
});
