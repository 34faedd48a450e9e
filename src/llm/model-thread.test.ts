import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../test/support/fake-openai-server.ts';
import { until } from '../../test/support/until.ts';
import { CrewdError, ModelCallError } from '../domain/errors.ts';
import type { ChatRequest } from './chat-model.ts';
import { startModelThread, type ModelThread } from './model-thread.ts';

let server: FakeOpenAIServer | undefined;
let thread: ModelThread | undefined;

afterEach(async () => {
  await thread?.close();
  await server?.close();
  thread = undefined;
  server = undefined;
});

async function setup(timeoutMs = 10_000) {
  server = await startFakeOpenAI();
  thread = startModelThread();
  const model = thread.adapters('openai', {
    modelId: 'openai/gpt-test',
    model: 'gpt-test',
    apiKey: 'sk-thread-key',
    baseURL: server.url,
    timeoutMs,
    // A function cannot cross to the thread: it uses an HTTP client of its own.
    fetch: () => Promise.reject(new Error('the thread must not call this fetch')),
  });
  return { server, thread, model };
}

/** A reply the fake server sends only once the test lets it go. */
function held(content: string) {
  let release!: () => void;
  const heldUntil = new Promise<void>((resolve) => (release = resolve));
  return { reply: { content, heldUntil }, release: () => release() };
}

const question: ChatRequest = {
  messages: [
    { role: 'system', content: 'You are a careful researcher.' },
    { role: 'user', content: 'Name one tide.' },
  ],
  tools: [{ name: 'lookup', description: 'Looks a word up', inputSchema: { type: 'object' } }],
};

const never = new AbortController().signal;

describe('the model thread', () => {
  it('makes the call on its own thread and answers with the text, tool calls and usage', async () => {
    const { server, model } = await setup();
    server.enqueue({
      content: 'Spring tide.',
      toolCalls: [{ name: 'lookup', arguments: { word: 'neap' } }],
      usage: { prompt_tokens: 21, completion_tokens: 4 },
    });

    const response = await model.generate(question, never);

    expect(response).toEqual({
      text: 'Spring tide.',
      toolCalls: [{ id: 'call_1', name: 'lookup', input: { word: 'neap' } }],
      usage: { promptTokens: 21, completionTokens: 4 },
    });
    expect(model.id).toBe('openai/gpt-test');
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-thread-key');
    expect(server.requests[0]!.body.messages[1]).toEqual({ role: 'user', content: 'Name one tide.' });
  });

  it('fails a call with the model error it failed with there, provider text left out', async () => {
    const { server, model } = await setup();
    server.enqueue(
      { status: 429, headers: { 'retry-after': '7' }, errorMessage: 'secret provider words' },
      { status: 401, errorMessage: 'secret provider words' },
    );

    const limited = await model.generate(question, never).catch((error: unknown) => error);
    const refused = await model.generate(question, never).catch((error: unknown) => error);

    expect(limited).toBeInstanceOf(ModelCallError);
    expect(limited).toMatchObject({ code: 'MODEL_ERROR', status: 429, retryable: true, retryAfterSeconds: 7 });
    expect(refused).toBeInstanceOf(ModelCallError);
    expect(refused).toMatchObject({ status: 401, retryable: false });
    expect((refused as Error).message).toBe('model returned HTTP 401 (the API key was refused)');
    for (const error of [limited, refused]) {
      expect(`${(error as Error).message} ${JSON.stringify(error)}`).not.toContain('secret');
    }
  });

  it('times a slow answer out as a retryable model error', async () => {
    const { server, model } = await setup(50);
    const late = held('late');
    server.enqueue(late.reply);

    const error = await model.generate(question, never).catch((caught: unknown) => caught);
    late.release();

    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({ retryable: true, message: 'model call timed out after 50 ms' });
  });

  it('rejects an aborted call with the abort reason and cancels its request', async () => {
    const { server, model } = await setup();
    const late = held('too late');
    server.enqueue(late.reply);
    const controller = new AbortController();

    const call = model.generate(question, controller.signal).catch((error: unknown) => error);
    await until(() => server.requests.length === 1);
    const reason = new CrewdError('CANCELLED', 'the execution was revoked');
    controller.abort(reason);

    expect(await call).toBe(reason);
    await until(() => server.abandoned.length === 1);
    late.release();
    await expect(model.generate(question, AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(server.requests).toHaveLength(1);
  });

  it('fails calls in flight when the thread stops, and starts it again for the next call', async () => {
    const { server, thread, model } = await setup();
    const cutOff = held('never read');
    server.enqueue(cutOff.reply, { content: 'After the restart.' });

    const call = model.generate(question, never).catch((error: unknown) => error);
    await until(() => server.requests.length === 1);
    await thread.close();
    cutOff.release();

    const error = await call;
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({ retryable: true });
    expect((await model.generate(question, never)).text).toBe('After the restart.');
  });
});
