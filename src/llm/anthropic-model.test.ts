import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedReceiver, type ScriptedReceiver } from '../../test/support/scripted-receiver.ts';
import { ModelCallError } from '../domain/errors.ts';
import { createAnthropicModel } from './anthropic-model.ts';
import { createModelFetch } from './model-fetch.ts';

const never = new AbortController().signal;

let server: ScriptedReceiver;
beforeAll(async () => {
  server = await startScriptedReceiver();
});
afterAll(() => server.close());

/** Anthropic's Messages endpoint, played on loopback by a receiver answering `status` with `body`. */
function answerMessages(status: number, body: unknown, headers: Record<string, string> = {}): void {
  server.answer('/v1/messages', (response) =>
    response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body)),
  );
}

/** The model as crewd builds it: over its own HTTP client, pointed at the receiver. */
function model(apiKey = 'sk-ant-test') {
  return createAnthropicModel({
    modelId: 'anthropic/claude-sonnet-4-5',
    model: 'claude-sonnet-4-5',
    apiKey,
    baseURL: `${server.url}/v1`,
    timeoutMs: 5_000,
    fetch: createModelFetch(),
  });
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
    answerMessages(200, reply);
    const before = server.received.length;

    const response = await model().generate(
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
    expect(server.received).toHaveLength(before + 1);
    const request = server.received.at(-1)!;
    expect(request.path).toBe('/v1/messages');
    expect(request.headers['x-api-key']).toBe('sk-ant-test');
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
    answerMessages(
      529,
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded for sk-ant-SECRET' } },
      { 'retry-after': '4' },
    );

    const error = (await model('k')
      .generate({ messages: [{ role: 'user', content: 'Hi' }] }, never)
      .catch((failure: unknown) => failure)) as ModelCallError;

    expect(error).toBeInstanceOf(ModelCallError);
    expect(error.message).toBe('model returned HTTP 529');
    expect(error.retryable).toBe(true);
    expect(error.retryAfterSeconds).toBe(4);
  });
});
