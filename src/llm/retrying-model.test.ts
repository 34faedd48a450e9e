import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from '../../test/support/fake-openai-server.ts';
import type { FakeOpenAIServer } from '../../test/support/fake-openai-server.ts';
import { CrewdError, ModelCallError } from '../domain/errors.ts';
import type { ChatModel, ChatRequest, ChatResponse } from './chat-model.ts';
import { createOpenAIModel } from './openai-model.ts';
import { withRetries } from './retrying-model.ts';
import { createModelFetch } from './model-fetch.ts';

/** The HTTP client the model resolver gives every model. */
const modelFetch = createModelFetch();

/** A real OpenAI model pointed at the fake server, as the resolver would make it. */
function openAIModelAt(baseURL: string) {
  return createOpenAIModel({
    fetch: modelFetch,
    modelId: 'openai/m',
    model: 'm',
    apiKey: 'k',
    baseURL,
    timeoutMs: 5_000,
  });
}

let server: FakeOpenAIServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const request: ChatRequest = { messages: [{ role: 'user', content: 'Hello' }] };
const never = new AbortController().signal;
const answer: ChatResponse = { text: 'hi', toolCalls: [], usage: { promptTokens: 1, completionTokens: 1 } };

/** A model that fails with the given errors, in order, then answers. */
function scripted(errors: Error[]): ChatModel & { calls: number } {
  const model = {
    id: 'test/scripted',
    calls: 0,
    generate: () => {
      model.calls += 1;
      const error = errors.shift();
      return error === undefined ? Promise.resolve(answer) : Promise.reject(error);
    },
  };
  return model;
}

function recordingSleep() {
  const delays: number[] = [];
  const sleep = (ms: number) => {
    delays.push(ms);
    return Promise.resolve();
  };
  return { delays, sleep };
}

const retryable = (message = 'model returned HTTP 500') =>
  new ModelCallError(message, { status: 500, retryable: true });

describe('withRetries', () => {
  it('waits as long as Retry-After asks on a 429, then returns the answer', async () => {
    server = await startFakeOpenAI();
    server.enqueue({ status: 429, headers: { 'retry-after': '2' } }, { content: 'Finally.' });
    const { delays, sleep } = recordingSleep();
    const model = withRetries(openAIModelAt(server.url), { sleep });

    const response = await model.generate(request, never);

    expect(response.text).toBe('Finally.');
    expect(delays).toEqual([2_000]);
    expect(server.requests).toHaveLength(2);
  });

  it('gives up after the retries are spent, saying why and never quoting the provider', async () => {
    server = await startFakeOpenAI({
      respond: () => ({ status: 500, errorMessage: 'internal failure for key sk-live-TOPSECRET' }),
    });
    const { delays, sleep } = recordingSleep();
    const model = withRetries(openAIModelAt(server.url), { maxRetries: 4, sleep, random: () => 0.5 });

    const error = await model.generate(request, never).catch((failure: unknown) => failure);

    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as ModelCallError).message).toBe(
      'model call failed after 5 attempts: model returned HTTP 500',
    );
    expect((error as ModelCallError).retryable).toBe(false);
    expect((error as ModelCallError).status).toBe(500);
    expect(JSON.stringify({ message: (error as Error).message })).not.toContain('TOPSECRET');
    expect(server.requests).toHaveLength(5);
    expect(delays).toEqual([250, 500, 1_000, 2_000]);
  });

  it('backs off exponentially with full jitter, capped at the maximum delay', async () => {
    const model = scripted([retryable(), retryable(), retryable(), retryable()]);
    const { delays, sleep } = recordingSleep();

    await withRetries(model, {
      maxRetries: 4,
      baseDelayMs: 100,
      maxDelayMs: 500,
      sleep,
      random: () => 0.99,
    }).generate(request, never);

    expect(delays).toEqual([99, 198, 396, 495]);
    expect(model.calls).toBe(5);
  });

  it('caps a long Retry-After at the maximum delay', async () => {
    const model = scripted([
      new ModelCallError('model returned HTTP 429', {
        status: 429,
        retryable: true,
        retryAfterSeconds: 3_600,
      }),
    ]);
    const { delays, sleep } = recordingSleep();

    await withRetries(model, { maxDelayMs: 30_000, sleep }).generate(request, never);

    expect(delays).toEqual([30_000]);
  });

  it('does not retry errors that are not retryable', async () => {
    const refused = new ModelCallError('model returned HTTP 401', { status: 401, retryable: false });
    const model = scripted([refused]);
    const { delays, sleep } = recordingSleep();

    await expect(withRetries(model, { sleep }).generate(request, never)).rejects.toBe(refused);
    expect(model.calls).toBe(1);
    expect(delays).toEqual([]);
  });

  it('passes other errors through untouched', async () => {
    const miss = new CrewdError('REPLAY_MISS', 'no answer');
    const model = scripted([miss]);

    await expect(withRetries(model).generate(request, never)).rejects.toBe(miss);
    expect(model.calls).toBe(1);
  });

  it('stops waiting at once when aborted during the backoff', async () => {
    const model = scripted([retryable(), retryable()]);
    const controller = new AbortController();
    const reason = new Error('cancelled');

    const pending = withRetries(model, { baseDelayMs: 60_000, random: () => 0.99 }).generate(
      request,
      controller.signal,
    );
    setTimeout(() => controller.abort(reason), 20);

    await expect(pending).rejects.toBe(reason);
    expect(model.calls).toBe(1);
  });

  it('keeps the id of the wrapped model', () => {
    expect(withRetries(scripted([])).id).toBe('test/scripted');
  });
});
