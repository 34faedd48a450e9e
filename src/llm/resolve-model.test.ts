import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from '../../test/support/fake-openai-server.ts';
import type { FakeOpenAIServer } from '../../test/support/fake-openai-server.ts';
import { CrewdError } from '../domain/errors.ts';
import type { ChatRequest } from './chat-model.ts';
import { replayEntry, writeReplayFile } from './replay-file.ts';
import { createModelResolver } from './resolve-model.ts';

let dir: string;
let server: FakeOpenAIServer;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crewd-resolve-'));
  server = await startFakeOpenAI();
});

afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const never = new AbortController().signal;
const hello: ChatRequest = { messages: [{ role: 'user', content: 'Hello there' }] };

function configError(run: () => unknown): CrewdError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CrewdError);
    expect((error as CrewdError).code).toBe('CONFIG_INVALID');
    return error as CrewdError;
  }
  return expect.fail('expected a configuration error');
}

describe('model resolver', () => {
  it('points openai models at OPENAI_BASE_URL with the key', async () => {
    const resolve = createModelResolver({
      env: { OPENAI_API_KEY: 'sk-abc', OPENAI_BASE_URL: server.url },
      baseDir: dir,
    });

    const response = await resolve('openai/gpt-4o-mini').generate(hello, never);

    expect(response.text).toBe('Fake answer to: Hello there');
    expect(server.requests[0]!.body.model).toBe('gpt-4o-mini');
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-abc');
  });

  it('accepts OPENAI_API_BASE and no key, for local servers', async () => {
    const resolve = createModelResolver({ env: { OPENAI_API_BASE: server.url }, baseDir: dir });

    await resolve('openai/llama3.2:3b').generate(hello, never);

    expect(server.requests[0]!.body.model).toBe('llama3.2:3b');
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('retries real providers', async () => {
    server.enqueue({ status: 503, headers: { 'retry-after': '0' } });
    const resolve = createModelResolver({ env: { OPENAI_BASE_URL: server.url }, baseDir: dir });

    expect((await resolve('openai/m').generate(hello, never)).text).toBe('Fake answer to: Hello there');
    expect(server.requests).toHaveLength(2);
  });

  it('records real answers when asked to, and replays them from the crew directory', async () => {
    const recordFile = join(dir, 'recorded.json');
    const recording = createModelResolver({ env: { OPENAI_BASE_URL: server.url }, baseDir: dir, recordFile });
    const answered = await recording('openai/m').generate(hello, never);
    await server.close();

    const replaying = createModelResolver({ env: {}, baseDir: dir });
    expect(await replaying('replay/recorded.json').generate(hello, never)).toEqual(answered);
    expect(JSON.parse(await readFile(recordFile, 'utf8')).entries).toHaveLength(1);
  });

  it('resolves replay files relative to the crew directory', async () => {
    await writeReplayFile(join(dir, 'demo.json'), {
      version: 1,
      entries: [
        replayEntry('x/y', hello, {
          text: 'Recorded hello',
          toolCalls: [],
          usage: { promptTokens: 1, completionTokens: 2 },
        }),
      ],
    });
    const resolve = createModelResolver({ env: {}, baseDir: dir });

    expect((await resolve('replay/demo.json').generate(hello, never)).text).toBe('Recorded hello');
    expect(resolve('replay/demo.json').id).toBe('replay/demo.json');
  });

  it('stands in for what a replay file lacks, unless CREWD_REPLAY_STRICT=1 makes it an error', async () => {
    await writeReplayFile(join(dir, 'demo.json'), { version: 1, entries: [] });
    const lenient = createModelResolver({ env: {}, baseDir: dir });
    const strict = createModelResolver({ env: { CREWD_REPLAY_STRICT: '1' }, baseDir: dir });

    expect((await lenient('replay/demo.json').generate(hello, never)).text).toMatch(
      /^Offline stand-in answer: no model wrote this\. The replay file "demo\.json" has no recording/,
    );
    await expect(strict('replay/demo.json').generate(hello, never)).rejects.toMatchObject({
      code: 'REPLAY_MISS',
      message: 'replay file "demo.json" has no answer for: Hello there',
    });
    expect(
      configError(() => createModelResolver({ env: { CREWD_REPLAY_STRICT: 'yes' }, baseDir: dir })).message,
    ).toBe('CREWD_REPLAY_STRICT must be 1 or 0');
  });

  it('gives one model per distinct spec', () => {
    const resolve = createModelResolver({ env: { OPENAI_API_KEY: 'k' }, baseDir: dir });

    expect(resolve('openai/a')).toBe(resolve('openai/a'));
    expect(resolve('openai/a')).toBe(resolve({ model: 'openai/a' }));
    expect(resolve('openai/a')).not.toBe(resolve('openai/b'));
    expect(resolve({ model: 'openai/a', temperature: 0 })).not.toBe(resolve('openai/a'));
  });

  it('refuses unknown prefixes and empty names, naming the model and the prefixes it knows', () => {
    const resolve = createModelResolver({ env: { OPENAI_API_KEY: 'k' }, baseDir: dir });

    expect(configError(() => resolve('openai/')).message).toBe(
      'model "openai/" names no model after "openai/"',
    );
    const unknown = configError(() => resolve('huggingface/Qwen/Qwen3-8B')).message;
    expect(unknown).toContain(
      'model "huggingface/Qwen/Qwen3-8B" has an unknown provider prefix "huggingface/"',
    );
    expect(unknown).toContain('ollama/');
    expect(unknown).toContain('give base_url');
  });

  it('refuses a base_url that is not an absolute http(s) URL, naming the model', () => {
    const resolve = createModelResolver({ env: {}, baseDir: dir });

    expect(configError(() => resolve({ model: 'openai/local', baseUrl: 'localhost:1234/v1' })).message).toBe(
      'model "openai/local" has a base_url that is not an absolute http(s) URL',
    );
  });

  it('refuses providers without credentials', () => {
    const resolve = createModelResolver({ env: { OPENAI_API_KEY: '' }, baseDir: dir });

    expect(configError(() => resolve('openai/gpt-4o')).message).toBe(
      'model "openai/gpt-4o" needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local OpenAI-compatible server)',
    );
    expect(configError(() => resolve('anthropic/claude-sonnet-4-5')).message).toBe(
      'model "anthropic/claude-sonnet-4-5" needs ANTHROPIC_API_KEY',
    );
  });

  it.each([
    ['OPENAI_BASE_URL', 'not-a-url', 'openai/gpt-4o'],
    ['OPENAI_API_BASE', 'localhost:11434/v1', 'openai/gpt-4o'],
    ['ANTHROPIC_BASE_URL', '::bad', 'anthropic/claude-sonnet-4-5'],
    ['OPENAI_BASE_URL', 'ftp://models.example.com/v1', 'openai/gpt-4o'],
  ])('refuses %s=%s, naming it, before any call', (name, value, model) => {
    const env = { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', [name]: value };
    const resolve = createModelResolver({ env, baseDir: dir });

    expect(configError(() => resolve(model)).message).toBe(
      `${name} must be an absolute http(s) URL, e.g. http://localhost:11434/v1`,
    );
  });
});
