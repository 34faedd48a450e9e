import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from '../../test/support/fake-openai-server.ts';
import type { FakeOpenAIServer } from '../../test/support/fake-openai-server.ts';
import type { ChatRequest } from './chat-model.ts';
import { createOpenAIModel } from './openai-model.ts';
import { createReplayRecorder, recordTo } from './recording-model.ts';
import { createReplayModel } from './replay-model.ts';

let dir: string;
let server: FakeOpenAIServer;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crewd-record-'));
  server = await startFakeOpenAI();
});

afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const never = new AbortController().signal;

function ask(content: string): ChatRequest {
  return {
    messages: [
      { role: 'system', content: 'You are a researcher.' },
      { role: 'user', content },
    ],
  };
}

function openai(id = 'openai/gpt-test') {
  return createOpenAIModel({
    modelId: id,
    model: 'gpt-test',
    apiKey: 'k',
    baseURL: server.url,
    timeoutMs: 5_000,
  });
}

describe('recording model', () => {
  it('records answers that a replay model then gives without the server', async () => {
    const file = join(dir, 'session.json');
    server.enqueue({ toolCalls: [{ name: 'search', arguments: { q: 'tides' } }] });
    const recording = recordTo(openai(), file);
    const tools = [{ name: 'search', description: 'Searches', inputSchema: { type: 'object' } }];
    const first = await recording.generate({ ...ask('Research tides'), tools }, never);
    const second = await recording.generate(ask('Summarise tides'), never);
    await server.close();

    const replay = createReplayModel({ id: 'replay/session.json', filePath: file, strict: true });

    expect(await replay.generate({ ...ask('Research tides'), tools }, never)).toEqual(first);
    expect(await replay.generate(ask('Summarise tides'), never)).toEqual(second);
    expect(second.text).toBe('Fake answer to: Summarise tides');
  });

  it('writes a readable file and keeps one entry per request', async () => {
    const file = join(dir, 'session.json');
    const recording = recordTo(openai(), file);
    await recording.generate(ask('Research tides'), never);
    await recording.generate(ask('Research tides'), never);
    await recording.generate(ask('Research waves'), never);

    const saved = JSON.parse(await readFile(file, 'utf8'));

    expect(saved.version).toBe(1);
    expect(saved.entries).toHaveLength(2);
    expect(saved.entries[0]).toMatchObject({
      key: expect.stringMatching(/^[0-9a-f]{64}$/),
      lenientKey: expect.stringMatching(/^[0-9a-f]{64}$/),
      request: { model: 'openai/gpt-test', messages: ask('Research tides').messages, tools: [] },
      response: {
        text: 'Fake answer to: Research tides',
        toolCalls: [],
        usage: { promptTokens: 10, completionTokens: 5 },
      },
    });
  });

  it('loses no entry when models share a recorder and answer at the same time', async () => {
    const file = join(dir, 'shared.json');
    const recorder = createReplayRecorder(file);
    const big = recordTo(openai('openai/big'), recorder);
    const small = recordTo(openai('openai/small'), recorder);

    await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        (index % 2 === 0 ? big : small).generate(ask(`question ${index}`), never),
      ),
    );

    const saved = JSON.parse(await readFile(file, 'utf8'));
    expect(saved.entries).toHaveLength(6);
  });

  it('records nothing when the call fails', async () => {
    const file = join(dir, 'failed.json');
    server.enqueue({ status: 400 });

    await expect(recordTo(openai(), file).generate(ask('Broken'), never)).rejects.toThrow(
      'model returned HTTP 400',
    );
    await expect(readFile(file, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
