import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
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
    const model = createReplayModel({ id: 'replay/demo.json', filePath: await demoFile(), strict: true });

    expect(await model.generate(revision('Shorter please.'), never)).toEqual(revised);
    expect(model.id).toBe('replay/demo.json');
  });

  it('answers the same request with other human feedback', async () => {
    const model = createReplayModel({ id: 'replay/demo.json', filePath: await demoFile(), strict: true });

    expect(await model.generate(revision('Make it longer, with citations.'), never)).toEqual(revised);
  });

  it('reports a miss naming the file and what was asked', async () => {
    const model = createReplayModel({ id: 'replay/demo.json', filePath: await demoFile(), strict: true });
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

  it('without strict, answers a request it has no recording for with a labelled stand-in that calls no tools', async () => {
    const model = createReplayModel({ id: 'replay/demo.json', filePath: await demoFile(), strict: false });
    const request: ChatRequest = {
      messages: [
        { role: 'system', content: 'You are a researcher.' },
        {
          role: 'user',
          content: 'Current task: Research Tide pools thoroughly.\n\nExpected output: Ten findings.',
        },
      ],
      tools: revision('x').tools!,
    };

    const answer = await model.generate(request, never);

    expect(answer.toolCalls).toEqual([]);
    expect(answer.usage).toEqual({ promptTokens: 0, completionTokens: 0 });
    expect(answer.text).toMatch(/^Offline stand-in answer: no model wrote this\./);
    expect(answer.text).toContain('set its llm to e.g. openai/gpt-4o-mini with OPENAI_API_KEY set');
    expect(answer.text).toContain('or remove llm and set MODEL');
    expect(answer.text).toContain('"demo.json"');
    expect(answer.text).not.toContain(dir);
    expect(answer.text).toMatch(/\n\nAsked for: Research Tide pools thoroughly\.$/);
    // What was recorded is still answered exactly, whatever the feedback.
    expect(await model.generate(revision('Something else entirely.'), never)).toEqual(revised);
  });

  it('without strict, answers a structured request with a labelled JSON object its schema accepts', async () => {
    const model = createReplayModel({ id: 'replay/demo.json', filePath: await demoFile(), strict: false });
    const schema = {
      type: 'object',
      properties: {
        title: { type: 'string' },
        summary: { type: 'string', maxLength: 40 },
        key_points: { type: 'array', items: { type: 'string' }, minItems: 3 },
        score: { type: 'integer', minimum: 1, maximum: 5 },
      },
      required: ['title', 'summary', 'key_points', 'score', 'source'],
      additionalProperties: false,
    };
    const request: ChatRequest = {
      messages: [{ role: 'user', content: 'Current task: Write the brief on 潮だまり.' }],
      responseSchema: {
        name: 'brief_task',
        schema: { ...schema, properties: { ...schema.properties, source: { type: 'string' } } },
      },
    };

    const answer = await model.generate(request, never);

    const value = JSON.parse(answer.text) as Record<string, unknown>;
    expect(new Ajv({ strict: false }).validate(request.responseSchema!.schema, value)).toBe(true);
    expect(value.title).toMatch(/^Offline stand-in answer: no model wrote this\./);
    expect(value.summary).toBe('Offline stand-in answer (summary)'.slice(0, 40));
    expect(value.key_points).toEqual([
      'Offline stand-in answer (key_points[0])',
      'Offline stand-in answer (key_points[1])',
      'Offline stand-in answer (key_points[2])',
    ]);
    expect(value.score).toBe(1);
  });

  it('reads the file once per model', async () => {
    const path = await demoFile();
    const model = createReplayModel({ id: 'replay/demo.json', filePath: path, strict: true });
    await model.generate(revision('a'), never);

    await writeFile(path, 'not json any more');

    expect((await model.generate(revision('b'), never)).text).toBe('A shorter draft.');
  });

  it('reports a missing or malformed file as a configuration error without its path', async () => {
    const missing = createReplayModel({
      id: 'replay/nope.json',
      filePath: join(dir, 'nope.json'),
      strict: true,
    });
    await expect(missing.generate(revision('a'), never)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: 'replay file "nope.json" was not found',
    });

    await writeFile(join(dir, 'bad.json'), JSON.stringify({ version: 2, entries: [] }));
    const bad = createReplayModel({ id: 'replay/bad.json', filePath: join(dir, 'bad.json'), strict: true });
    await expect(bad.generate(revision('a'), never)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: 'replay file "bad.json" is not a valid replay file',
    });
  });

  it('rejects with the abort reason when already aborted', async () => {
    const model = createReplayModel({ id: 'replay/demo.json', filePath: await demoFile(), strict: true });
    const controller = new AbortController();
    const reason = new Error('cancelled');
    controller.abort(reason);

    await expect(model.generate(revision('a'), controller.signal)).rejects.toBe(reason);
  });
});
