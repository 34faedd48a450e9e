import { describe, expect, it } from 'vitest';
import { ModelCallError } from '../domain/errors.ts';
import { createAnthropicModel } from './anthropic-model.ts';

const never = new AbortController().signal;

/** A stand-in for Anthropic's Messages endpoint that records what it was sent. */
function fakeAnthropic(status: number, body: unknown, headers: Record<string, string> = {}) {
  const sent: { url: string; headers: Headers; body: Record<string, unknown> }[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    sent.push({
      url: input instanceof Request ? input.url : String(input),
      headers: new Headers(init?.headers),
      body: JSON.parse(init?.body as string),
    });
    return Promise.resolve(
      new Response(JSON.stringify(body), {
        status,
        headers: { 'content-type': 'application/json', ...headers },
      }),
    );
  };
  return { sent, fetch };
}

const reply = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [
    { type: 'text', text: 'Checking.' },
    { type: 'tool_use', id: 'toolu_2', name: 'search', input: { q: 'tides' } },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 12, output_tokens: 3 },
};

describe('Anthropic model', () => {
  it('maps the conversation to the Messages API and the answer back', async () => {
    const { sent, fetch } = fakeAnthropic(200, reply);
    const model = createAnthropicModel({
      modelId: 'anthropic/claude-sonnet-4-5',
      model: 'claude-sonnet-4-5',
      apiKey: 'sk-ant-test',
      baseURL: 'http://anthropic.test/v1',
      timeoutMs: 5_000,
      fetch,
    });

    const response = await model.generate(
      {
        messages: [
          { role: 'system', content: 'You are a researcher.' },
          { role: 'user', content: 'Research tides.' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'toolu_1', name: 'search', input: { q: 'moon' } }],
          },
          { role: 'tool', toolCallId: 'toolu_1', toolName: 'search', content: 'The moon pulls the sea.' },
        ],
        tools: [{ name: 'search', description: 'Searches', inputSchema: { type: 'object' } }],
      },
      never,
    );

    expect(response).toEqual({
      text: 'Checking.',
      toolCalls: [{ id: 'toolu_2', name: 'search', input: { q: 'tides' } }],
      usage: { promptTokens: 12, completionTokens: 3 },
    });
    const request = sent[0]!;
    expect(request.url).toBe('http://anthropic.test/v1/messages');
    expect(request.headers.get('x-api-key')).toBe('sk-ant-test');
    expect(request.body.model).toBe('claude-sonnet-4-5');
    expect(request.body.system).toEqual([{ type: 'text', text: 'You are a researcher.' }]);
    expect(request.body.messages).toMatchObject([
      { role: 'user', content: [{ type: 'text', text: 'Research tides.' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'search', input: { q: 'moon' } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'The moon pulls the sea.' }],
      },
    ]);
    expect(request.body.tools).toMatchObject([{ name: 'search', description: 'Searches' }]);
  });

  it('reports an overloaded provider as retryable, in its own words', async () => {
    const { fetch } = fakeAnthropic(
      529,
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded for sk-ant-SECRET' } },
      { 'retry-after': '4' },
    );
    const model = createAnthropicModel({
      modelId: 'anthropic/c',
      model: 'c',
      apiKey: 'k',
      timeoutMs: 5_000,
      fetch,
    });

    const error = (await model
      .generate({ messages: [{ role: 'user', content: 'Hi' }] }, never)
      .catch((failure: unknown) => failure)) as ModelCallError;

    expect(error).toBeInstanceOf(ModelCallError);
    expect(error.message).toBe('model returned HTTP 529');
    expect(error.retryable).toBe(true);
    expect(error.retryAfterSeconds).toBe(4);
  });
});
