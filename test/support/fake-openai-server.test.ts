import { createOpenAI } from '@ai-sdk/openai';
import { APICallError, generateText, jsonSchema, streamText, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from './fake-openai-server.ts';
import type { FakeOpenAIServer } from './fake-openai-server.ts';
import { until } from './until.ts';

let server: FakeOpenAIServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

function chatModel(url: string) {
  return createOpenAI({ baseURL: url, apiKey: 'test-key' }).chat('gpt-test');
}

describe('fake OpenAI server', () => {
  it('answers a plain completion by default and records the request', async () => {
    server = await startFakeOpenAI();
    const result = await generateText({
      model: chatModel(server.url),
      prompt: 'What is the capital of France?',
    });

    expect(result.text).toBe('Fake answer to: What is the capital of France?');
    expect(result.usage.inputTokens).toBe(10);
    expect(result.usage.outputTokens).toBe(5);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.path).toBe('/v1/chat/completions');
    expect(server.requests[0]!.headers.authorization).toBe('Bearer test-key');
    expect(server.requests[0]!.body.model).toBe('gpt-test');
  });

  it('answers a huge completion a chunk at a time, as a valid completion', async () => {
    server = await startFakeOpenAI();
    server.enqueue({ hugeContentBytes: 200_000 });
    const result = await generateText({ model: chatModel(server.url), prompt: 'Go on.' });

    expect(result.text).toBe('x'.repeat(200_000));
    await until(() => server!.huge.length === 1);
    expect(server.huge[0]).toMatchObject({ cutShort: false });
  });

  it('streams text, tool call deltas and usage', async () => {
    server = await startFakeOpenAI();
    server.enqueue({
      content: 'Looking that up now.',
      toolCalls: [{ name: 'search', arguments: { query: 'crewd' } }],
      usage: { prompt_tokens: 42, completion_tokens: 7 },
    });
    const result = streamText({
      model: chatModel(server.url),
      prompt: 'Search for crewd',
      tools: { search: tool({ description: 'Searches', inputSchema: jsonSchema({ type: 'object' }) }) },
    });

    expect(await result.text).toBe('Looking that up now.');
    const toolCalls = await result.toolCalls;
    expect(toolCalls.map((call): unknown[] => [call.toolCallId, call.toolName, call.input])).toEqual([
      ['call_1', 'search', { query: 'crewd' }],
    ]);
    expect((await result.usage).inputTokens).toBe(42);
    expect(server.requests[0]!.body.stream).toBe(true);
  });

  it('answers queued replies first, then the responder', async () => {
    server = await startFakeOpenAI({ respond: () => ({ content: 'from responder' }) });
    server.enqueue({ toolCalls: [{ name: 'lookup', arguments: { id: 7 } }] });
    const tools = { lookup: tool({ description: 'Looks up', inputSchema: jsonSchema({ type: 'object' }) }) };

    const first = await generateText({ model: chatModel(server.url), prompt: 'one', tools });
    const second = await generateText({ model: chatModel(server.url), prompt: 'two', tools });

    expect(first.toolCalls.map((call): unknown[] => [call.toolCallId, call.toolName, call.input])).toEqual([
      ['call_1', 'lookup', { id: 7 }],
    ]);
    expect(first.finishReason).toBe('tool-calls');
    expect(second.text).toBe('from responder');
  });

  it('answers an error status with an OpenAI-style body and the given headers', async () => {
    server = await startFakeOpenAI();
    server.enqueue({ status: 429, headers: { 'retry-after': '3' }, errorMessage: 'slow down' });

    const failure = await generateText({ model: chatModel(server.url), prompt: 'hi', maxRetries: 0 }).catch(
      (error: unknown) => error,
    );

    expect(APICallError.isInstance(failure)).toBe(true);
    const callError = failure as APICallError;
    expect(callError.statusCode).toBe(429);
    expect(callError.responseHeaders?.['retry-after']).toBe('3');
    expect(callError.message).toBe('slow down');
  });

  it('lists models', async () => {
    server = await startFakeOpenAI();
    const response = await fetch(`${server.url}/models`);
    const body = (await response.json()) as { data: { id: string }[] };
    expect(body.data.map((model) => model.id)).toEqual(['fake-model']);
  });

  it('ends requests still in flight when closed', async () => {
    const slow = await startFakeOpenAI();
    slow.enqueue({ content: 'too late', delayMs: 60_000 });
    const pending = fetch(`${slow.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'x', messages: [] }),
    });
    await until(() => slow.requests.length === 1);

    // The answer is a minute away, twice the test's time limit: only a close that ends it lets the test pass.
    await slow.close();

    await expect(pending).rejects.toThrow();
  });

  it('holds an answer until the test lets it go', async () => {
    server = await startFakeOpenAI();
    let release = (): void => {};
    server.enqueue(
      { content: 'let go', heldUntil: new Promise<void>((done) => (release = done)) },
      { content: 'meanwhile' },
    );
    let answered = false;
    const result = generateText({ model: chatModel(server.url), prompt: 'hold on' }).then((answer) => {
      answered = true;
      return answer;
    });
    await until(() => server!.requests.length === 1);
    // A later request gets its whole answer while the first is still held.
    const later = await generateText({ model: chatModel(server.url), prompt: 'and this?' });
    expect(later.text).toBe('meanwhile');
    expect(answered).toBe(false);
    expect(server.answered.map((request) => request.body.messages.at(-1).content)).toEqual(['and this?']);

    release();
    expect((await result).text).toBe('let go');
    expect(server.answered.map((request) => request.body.messages.at(-1).content)).toEqual([
      'and this?',
      'hold on',
    ]);
  });
});
