import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from '../../test/support/fake-openai-server.ts';
import type { FakeOpenAIServer } from '../../test/support/fake-openai-server.ts';
import { until } from '../../test/support/until.ts';
import { ModelCallError } from '../domain/errors.ts';
import type { ChatMessage, ChatRequest } from './chat-model.ts';
import { createOpenAIModel } from './openai-model.ts';
import { createModelFetch } from './model-fetch.ts';

/** The HTTP client the model resolver gives every model. */
const modelFetch = createModelFetch();

let server: FakeOpenAIServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(timeoutMs = 5_000) {
  server = await startFakeOpenAI();
  const model = createOpenAIModel({
    fetch: modelFetch,
    modelId: 'openai/gpt-test',
    model: 'gpt-test',
    apiKey: 'sk-test-key',
    baseURL: server.url,
    timeoutMs,
  });
  return { server, model };
}

const question: ChatRequest = {
  messages: [
    { role: 'system', content: 'You are a careful researcher.' },
    { role: 'user', content: 'Summarise the state of solid-state batteries.' },
  ],
};

const never = new AbortController().signal;

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected the call to fail'),
    (error: unknown) => error,
  );
}

describe('OpenAI model', () => {
  it('returns the answer text and token usage', async () => {
    const { server, model } = await setup();
    server.enqueue({
      content: 'Solid-state batteries are close.',
      usage: { prompt_tokens: 31, completion_tokens: 9 },
    });

    const response = await model.generate(question, never);

    expect(response).toEqual({
      text: 'Solid-state batteries are close.',
      toolCalls: [],
      usage: { promptTokens: 31, completionTokens: 9 },
    });
    expect(model.id).toBe('openai/gpt-test');
    const body = server.requests[0]!.body;
    expect(body.model).toBe('gpt-test');
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are a careful researcher.' },
      { role: 'user', content: 'Summarise the state of solid-state batteries.' },
    ]);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test-key');
  });

  it('sends tools and returns the tool calls the model makes', async () => {
    const { server, model } = await setup();
    server.enqueue({ toolCalls: [{ name: 'web_search', arguments: { query: 'battery news', limit: 3 } }] });
    const inputSchema = { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] };

    const response = await model.generate(
      { ...question, tools: [{ name: 'web_search', description: 'Searches the web', inputSchema }] },
      never,
    );

    expect(response.text).toBe('');
    expect(response.toolCalls).toEqual([
      { id: 'call_1', name: 'web_search', input: { query: 'battery news', limit: 3 } },
    ]);
    expect(server.requests[0]!.body.tools).toEqual([
      {
        type: 'function',
        function: { name: 'web_search', description: 'Searches the web', parameters: inputSchema },
      },
    ]);
  });

  it('hands tool input that is not JSON to the engine as text, and empty input as an empty object', async () => {
    const { server, model } = await setup();
    server.enqueue({
      toolCalls: [
        { name: 'web_search', arguments: '{"query": "unterminated' },
        { name: 'clock', arguments: '' },
      ],
    });
    const inputSchema = { type: 'object' };
    const tools = [
      { name: 'web_search', description: 'Searches the web', inputSchema },
      { name: 'clock', description: 'Tells the time', inputSchema },
    ];

    const response = await model.generate({ ...question, tools }, never);

    expect(response.toolCalls).toEqual([
      { id: 'call_1', name: 'web_search', input: '{"query": "unterminated' },
      { id: 'call_2', name: 'clock', input: {} },
    ]);
    expect(server.requests[0]!.body.tool_choice).toBe('auto');
  });

  it('sends earlier tool calls and their results back in the conversation', async () => {
    const { server, model } = await setup();
    const messages: ChatMessage[] = [
      ...question.messages,
      {
        role: 'assistant',
        content: 'Let me search.',
        toolCalls: [{ id: 'call_9', name: 'web_search', input: { query: 'battery news' } }],
      },
      {
        role: 'tool',
        toolCallId: 'call_9',
        toolName: 'web_search',
        content: 'Three new pilot lines opened.',
      },
    ];

    await model.generate({ messages }, never);

    expect(server.requests[0]!.body.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: 'Let me search.',
        tool_calls: [
          {
            id: 'call_9',
            type: 'function',
            function: { name: 'web_search', arguments: JSON.stringify({ query: 'battery news' }) },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_9', content: 'Three new pilot lines opened.' },
    ]);
  });

  it('asks for structured output with the response schema', async () => {
    const { server, model } = await setup();
    server.enqueue({ content: '{"title":"Batteries","score":7}' });
    const schema = { type: 'object', properties: { title: { type: 'string' }, score: { type: 'number' } } };

    const response = await model.generate({ ...question, responseSchema: { name: 'Report', schema } }, never);

    expect(response.text).toBe('{"title":"Batteries","score":7}');
    expect(server.requests[0]!.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'Report', strict: false, schema: { type: 'object' } },
    });
  });

  it('returns an answer that is not JSON as text, for the caller to judge', async () => {
    const { server, model } = await setup();
    server.enqueue({ content: 'Sorry, no JSON today.', usage: { prompt_tokens: 4, completion_tokens: 2 } });

    const response = await model.generate(
      { ...question, responseSchema: { name: 'Report', schema: { type: 'object' } } },
      never,
    );

    expect(response).toEqual({
      text: 'Sorry, no JSON today.',
      toolCalls: [],
      usage: { promptTokens: 4, completionTokens: 2 },
    });
  });

  it('reports an HTTP error in its own words, without the provider text', async () => {
    const { server, model } = await setup();
    server.enqueue({
      status: 429,
      headers: { 'retry-after': '7' },
      errorMessage: 'quota for sk-live-SECRET exceeded',
    });

    const error = await failureOf(model.generate(question, never));

    expect(error).toBeInstanceOf(ModelCallError);
    const callError = error as ModelCallError;
    expect(callError.message).toBe('model returned HTTP 429');
    expect(callError.retryable).toBe(true);
    expect(callError.status).toBe(429);
    expect(callError.retryAfterSeconds).toBe(7);
    expect(callError.message).not.toContain('SECRET');
  });

  it.each([
    [400, false, 'model returned HTTP 400'],
    [401, false, 'model returned HTTP 401 (the API key was refused)'],
    [404, false, 'model returned HTTP 404 (unknown model or endpoint)'],
    [408, true, 'model returned HTTP 408'],
    [503, true, 'model returned HTTP 503'],
  ])('treats HTTP %i as retryable: %s', async (status, retryable, message) => {
    const { server, model } = await setup();
    server.enqueue({ status, errorMessage: 'provider says no' });

    const error = (await failureOf(model.generate(question, never))) as ModelCallError;

    expect(error.message).toBe(message);
    expect(error.retryable).toBe(retryable);
  });

  it('fails a slow answer with a retryable timeout', async () => {
    server = await startFakeOpenAI();
    const signals: (AbortSignal | null | undefined)[] = [];
    const model = createOpenAIModel({
      fetch: (input, init) => {
        signals.push(init?.signal);
        return modelFetch(input, init);
      },
      modelId: 'openai/gpt-test',
      model: 'gpt-test',
      apiKey: 'sk-test-key',
      baseURL: server.url,
      timeoutMs: 150,
    });
    server.enqueue({ content: 'too late', delayMs: 60_000 });

    const error = (await failureOf(model.generate(question, never))) as ModelCallError;

    expect(error).toBeInstanceOf(ModelCallError);
    expect(error.message).toBe('model call timed out after 150 ms');
    expect(error.retryable).toBe(true);
    // Dropped at the timeout, not left running: the request's own signal was aborted. (Whether the fake saw the
    // request before that depends on how busy the machine is.)
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(true);
  });

  it('rejects with the abort reason when aborted mid-call', async () => {
    const { server, model } = await setup();
    server.enqueue({ content: 'too late', delayMs: 3_000 });
    const controller = new AbortController();
    const reason = new Error('execution cancelled');

    const pending = failureOf(model.generate(question, controller.signal));
    await until(() => server.requests.length > 0);
    controller.abort(reason);

    expect(await pending).toBe(reason);
  });

  it('reports a server that cannot be reached as retryable', async () => {
    const { server } = await setup();
    const url = server.url;
    await server.close();
    const model = createOpenAIModel({
      fetch: modelFetch,
      modelId: 'openai/x',
      model: 'x',
      apiKey: 'k',
      baseURL: url,
      timeoutMs: 2_000,
    });

    const error = (await failureOf(model.generate(question, never))) as ModelCallError;

    expect(error).toBeInstanceOf(ModelCallError);
    expect(error.message).toBe('could not reach the model server (ECONNREFUSED)');
    expect(error.retryable).toBe(true);
    expect(error.message).not.toContain('127.0.0.1');
  });

  it('sends no Authorization header when no key is configured', async () => {
    server = await startFakeOpenAI();
    const model = createOpenAIModel({
      fetch: modelFetch,
      modelId: 'openai/local',
      model: 'local',
      baseURL: server.url,
      timeoutMs: 2_000,
    });

    await model.generate(question, never);

    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });
});
