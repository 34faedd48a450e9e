import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CrewdError } from '../../src/domain/errors.ts';
import type { ModelSpec } from '../../src/domain/crew.ts';
import type { ChatRequest } from '../../src/llm/chat-model.ts';
import { createModelResolver } from '../../src/llm/resolve-model.ts';
import {
  chatCompletionsAnswer,
  converseAnswer,
  generateContentAnswer,
  messagesAnswer,
  redirectingFetch,
} from '../support/fake-provider-apis.ts';
import type { FakeTurn } from '../support/fake-provider-apis.ts';
import { startScriptedReceiver } from '../support/scripted-receiver.ts';
import type { Answer, ReceivedRequest, ScriptedReceiver } from '../support/scripted-receiver.ts';

const never = new AbortController().signal;
let server: ScriptedReceiver;

beforeAll(async () => {
  server = await startScriptedReceiver();
});
afterAll(() => server.close());
beforeEach(() => {
  server.received.length = 0;
});

const request: ChatRequest = {
  messages: [
    { role: 'system', content: 'You are a researcher.' },
    { role: 'user', content: 'Research tides.' },
  ],
  tools: [
    {
      name: 'search',
      description: 'Searches the web',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    },
  ],
};
const turn: FakeTurn = { text: 'Looking it up.', toolInput: { q: 'tides' } };
const settings = { temperature: 0.2, maxTokens: 800, topP: 0.9 };

/** Calls `spec` through the resolver crewd uses, with `env`, and returns the one request the fake received. */
async function callThrough(spec: ModelSpec, env: Record<string, string>): Promise<ReceivedRequest> {
  const resolve = createModelResolver({ env, baseDir: '.', retry: { maxRetries: 0 } });
  const response = await resolve(spec).generate(request, never);
  expect(response.text).toBe('Looking it up.');
  expect(response.toolCalls).toMatchObject([{ name: 'search', input: { q: 'tides' } }]);
  expect(response.usage).toEqual({ promptTokens: 12, completionTokens: 3 });
  expect(server.received).toHaveLength(1);
  return server.received[0]!;
}

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

interface OpenAIFormatCase {
  readonly model: string;
  readonly env: (url: string) => Record<string, string>;
  /** The path the provider's base URL (as set in env) leads to. */
  readonly path: string;
  readonly authorization: string | undefined;
  readonly sentModel: string;
}

const openAIFormat: readonly (readonly [string, OpenAIFormatCase])[] = [
  [
    'a bare OpenAI name, at OPENAI_BASE_URL',
    {
      model: 'gpt-4o-mini',
      env: (url) => ({ OPENAI_API_KEY: 'sk-openai', OPENAI_BASE_URL: `${url}/v1` }),
      path: '/v1/chat/completions',
      authorization: 'Bearer sk-openai',
      sentModel: 'gpt-4o-mini',
    },
  ],
  [
    'ollama/, at the root URL in OLLAMA_API_BASE, with no key',
    {
      model: 'ollama/llama3.1',
      env: (url) => ({ OLLAMA_API_BASE: url }),
      path: '/v1/chat/completions',
      authorization: undefined,
      sentModel: 'llama3.1',
    },
  ],
  [
    'groq/, with GROQ_API_KEY',
    {
      model: 'groq/llama-3.3-70b-versatile',
      env: (url) => ({ GROQ_API_KEY: 'gsk-groq', GROQ_API_BASE: `${url}/openai/v1` }),
      path: '/openai/v1/chat/completions',
      authorization: 'Bearer gsk-groq',
      sentModel: 'llama-3.3-70b-versatile',
    },
  ],
  [
    'mistral/, with MISTRAL_API_KEY',
    {
      model: 'mistral/mistral-large-latest',
      env: (url) => ({ MISTRAL_API_KEY: 'mistral-key', MISTRAL_API_BASE: `${url}/v1` }),
      path: '/v1/chat/completions',
      authorization: 'Bearer mistral-key',
      sentModel: 'mistral-large-latest',
    },
  ],
  [
    'deepseek/, with DEEPSEEK_API_KEY',
    {
      model: 'deepseek/deepseek-chat',
      env: (url) => ({ DEEPSEEK_API_KEY: 'ds-key', DEEPSEEK_BASE_URL: `${url}/v1` }),
      path: '/v1/chat/completions',
      authorization: 'Bearer ds-key',
      sentModel: 'deepseek-chat',
    },
  ],
  [
    'openrouter/, keeping the vendor in the model name',
    {
      model: 'openrouter/anthropic/claude-3.5-sonnet',
      env: (url) => ({ OPENROUTER_API_KEY: 'or-key', OPENROUTER_BASE_URL: `${url}/api/v1` }),
      path: '/api/v1/chat/completions',
      authorization: 'Bearer or-key',
      sentModel: 'anthropic/claude-3.5-sonnet',
    },
  ],
  [
    'nvidia_nim/, with NVIDIA_NIM_API_KEY',
    {
      model: 'nvidia_nim/meta/llama-3.1-8b-instruct',
      env: (url) => ({ NVIDIA_NIM_API_KEY: 'nvapi-key', NVIDIA_NIM_API_BASE: `${url}/v1` }),
      path: '/v1/chat/completions',
      authorization: 'Bearer nvapi-key',
      sentModel: 'meta/llama-3.1-8b-instruct',
    },
  ],
];

describe('models over the OpenAI wire format', () => {
  it.each(openAIFormat)('calls %s', async (_name, example) => {
    server.answer(example.path, chatCompletionsAnswer(turn));

    const received = await callThrough({ model: example.model, ...settings }, example.env(server.url));

    expect(received.path).toBe(example.path);
    expect(received.headers.authorization).toBe(example.authorization);
    expect(received.body).toMatchObject({
      model: example.sentModel,
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 800,
      messages: [
        { role: 'system', content: 'You are a researcher.' },
        { role: 'user', content: 'Research tides.' },
      ],
      tools: [{ type: 'function', function: { name: 'search', description: 'Searches the web' } }],
    });
  });

  it('sends a model with an unknown prefix whole to the base_url the crew gives, with its api_key', async () => {
    server.answer('/v1/chat/completions', chatCompletionsAnswer(turn));

    const received = await callThrough(
      { model: 'Qwen/Qwen2.5-7B-Instruct', baseUrl: `${server.url}/v1`, apiKey: 'vllm-key' },
      {},
    );

    expect(received.body.model).toBe('Qwen/Qwen2.5-7B-Instruct');
    expect(received.headers.authorization).toBe('Bearer vllm-key');
  });

  it("prefers the llm's own base_url and api_key to the environment's", async () => {
    server.answer('/v1/chat/completions', chatCompletionsAnswer(turn));

    const received = await callThrough(
      { model: 'openai/gpt-4o', baseUrl: `${server.url}/v1`, apiKey: 'sk-from-yaml' },
      { OPENAI_API_KEY: 'sk-from-env', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
    );

    expect(received.headers.authorization).toBe('Bearer sk-from-yaml');
  });

  it('calls an Azure OpenAI deployment at its deployments URL with the api-key header', async () => {
    const path = '/openai/deployments/research-gpt4o/chat/completions?api-version=2024-06-01';
    server.answer(path, chatCompletionsAnswer(turn));

    const received = await callThrough(
      { model: 'azure/research-gpt4o', ...settings },
      { AZURE_API_KEY: 'azure-key', AZURE_API_BASE: `${server.url}/`, AZURE_API_VERSION: '2024-06-01' },
    );

    expect(received.path).toBe(path);
    expect(received.headers['api-key']).toBe('azure-key');
    expect(received.headers.authorization).toBeUndefined();
    expect(received.body).toMatchObject({ temperature: 0.2, top_p: 0.9, max_tokens: 800 });
  });
});

describe('models over their providers own APIs', () => {
  it('calls anthropic/ over the Messages API, adding the version to a base URL without it', async () => {
    server.answer('/v1/messages', messagesAnswer(turn));

    const received = await callThrough(
      { model: 'anthropic/claude-sonnet-4-5', temperature: 0.2, maxTokens: 800 },
      { ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_BASE_URL: server.url },
    );

    expect(received.path).toBe('/v1/messages');
    expect(received.headers['x-api-key']).toBe('sk-ant');
    expect(received.body).toMatchObject({
      model: 'claude-sonnet-4-5',
      temperature: 0.2,
      max_tokens: 800,
      system: [{ type: 'text', text: 'You are a researcher.' }],
      tools: [{ name: 'search', description: 'Searches the web' }],
    });
  });

  it('calls gemini/ over generateContent with the x-goog-api-key header', async () => {
    const path = '/v1beta/models/gemini-2.0-flash:generateContent';
    server.answer(path, generateContentAnswer(turn));

    const received = await callThrough(
      { model: 'gemini/gemini-2.0-flash', ...settings },
      { GOOGLE_API_KEY: 'goog-key', GEMINI_API_BASE: `${server.url}/v1beta` },
    );

    expect(received.path).toBe(path);
    expect(received.headers['x-goog-api-key']).toBe('goog-key');
    expect(received.body).toMatchObject({
      generationConfig: { temperature: 0.2, topP: 0.9, maxOutputTokens: 800 },
      systemInstruction: { parts: [{ text: 'You are a researcher.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Research tides.' }] }],
      tools: [{ functionDeclarations: [{ name: 'search', description: 'Searches the web' }] }],
    });
  });

  it('calls bedrock/ over the Converse API, signed with SigV4 for the region set', async () => {
    const path = '/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse';
    server.answer(path, converseAnswer(turn));

    const received = await callThrough(
      { model: 'bedrock/anthropic.claude-3-haiku-20240307-v1:0', baseUrl: server.url, ...settings },
      {
        AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
        AWS_SECRET_ACCESS_KEY: 'secret-example',
        AWS_SESSION_TOKEN: 'session-example',
        AWS_REGION_NAME: 'eu-west-1',
      },
    );

    expect(received.path).toBe(path);
    expect(received.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/bedrock\/aws4_request, SignedHeaders=[^,]+, Signature=[0-9a-f]{64}$/,
    );
    expect(received.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    expect(received.headers['x-amz-security-token']).toBe('session-example');
    expect(received.body).toMatchObject({
      system: [{ text: 'You are a researcher.' }],
      messages: [{ role: 'user', content: [{ text: 'Research tides.' }] }],
      inferenceConfig: { temperature: 0.2, topP: 0.9, maxTokens: 800 },
      toolConfig: { tools: [{ toolSpec: { name: 'search', description: 'Searches the web' } }] },
    });
  });

  it('calls bedrock/ with a Bedrock API key as a bearer token instead of a signature', async () => {
    const path = '/model/amazon.nova-lite-v1%3A0/converse';
    server.answer(path, converseAnswer(turn));

    const received = await callThrough(
      { model: 'bedrock/amazon.nova-lite-v1:0', baseUrl: server.url },
      { AWS_BEARER_TOKEN_BEDROCK: 'bedrock-api-key' },
    );

    expect(received.headers.authorization).toBe('Bearer bedrock-api-key');
  });
});

describe('default endpoints', () => {
  const defaults: readonly (readonly [string, Record<string, string>, string, Answer])[] = [
    [
      'gpt-4o',
      { OPENAI_API_KEY: 'k' },
      'https://api.openai.com/v1/chat/completions',
      chatCompletionsAnswer(turn),
    ],
    [
      'claude-3-5-haiku-latest',
      { ANTHROPIC_API_KEY: 'k' },
      'https://api.anthropic.com/v1/messages',
      messagesAnswer(turn),
    ],
    [
      'gemini-2.0-flash',
      { GEMINI_API_KEY: 'k' },
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent',
      generateContentAnswer(turn),
    ],
    [
      'bedrock/amazon.nova-lite-v1:0',
      { AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 's' },
      'https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-lite-v1%3A0/converse',
      converseAnswer(turn),
    ],
    ['ollama/llama3.1', {}, 'http://localhost:11434/v1/chat/completions', chatCompletionsAnswer(turn)],
    [
      'groq/llama3-8b-8192',
      { GROQ_API_KEY: 'k' },
      'https://api.groq.com/openai/v1/chat/completions',
      chatCompletionsAnswer(turn),
    ],
    [
      'mistral/mistral-small-latest',
      { MISTRAL_API_KEY: 'k' },
      'https://api.mistral.ai/v1/chat/completions',
      chatCompletionsAnswer(turn),
    ],
    [
      'deepseek/deepseek-chat',
      { DEEPSEEK_API_KEY: 'k' },
      'https://api.deepseek.com/v1/chat/completions',
      chatCompletionsAnswer(turn),
    ],
    [
      'openrouter/openai/gpt-4o',
      { OPENROUTER_API_KEY: 'k' },
      'https://openrouter.ai/api/v1/chat/completions',
      chatCompletionsAnswer(turn),
    ],
    [
      'nvidia_nim/meta/llama3-8b-instruct',
      { NVIDIA_NIM_API_KEY: 'k' },
      'https://integrate.api.nvidia.com/v1/chat/completions',
      chatCompletionsAnswer(turn),
    ],
  ];

  it.each(defaults)('sends %s to its provider by default', async (model, env, url, answer) => {
    server.answer(new URL(url).pathname, answer);
    const intended: string[] = [];
    const resolve = createModelResolver({
      env,
      baseDir: '.',
      retry: { maxRetries: 0 },
      fetch: redirectingFetch(server, intended),
    });

    await resolve(model).generate(request, never);

    expect(intended).toEqual([url]);
  });
});

describe('refusals', () => {
  it.each([
    ['gpt-4o', 'OPENAI_API_KEY (or OPENAI_BASE_URL for a local OpenAI-compatible server)'],
    ['claude-3-5-sonnet-latest', 'ANTHROPIC_API_KEY'],
    ['gemini/gemini-2.0-flash', 'GEMINI_API_KEY (or GOOGLE_API_KEY)'],
    ['azure/my-deployment', 'AZURE_API_KEY'],
    [
      'bedrock/anthropic.claude-3-haiku-20240307-v1:0',
      'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_BEARER_TOKEN_BEDROCK)',
    ],
    ['groq/llama3-8b-8192', 'GROQ_API_KEY'],
    ['mistral/mistral-large-latest', 'MISTRAL_API_KEY'],
    ['deepseek/deepseek-chat', 'DEEPSEEK_API_KEY'],
    ['openrouter/openai/gpt-4o', 'OPENROUTER_API_KEY'],
    ['nvidia_nim/meta/llama3-8b-instruct', 'NVIDIA_NIM_API_KEY'],
  ])('refuses %s without a key, naming the variable', (model, variable) => {
    const resolve = createModelResolver({ env: {}, baseDir: '.' });

    expect(configError(() => resolve(model)).message).toBe(`model "${model}" needs ${variable}`);
  });

  it('refuses azure/ without the resource endpoint', () => {
    const resolve = createModelResolver({ env: { AZURE_API_KEY: 'k' }, baseDir: '.' });

    expect(configError(() => resolve('azure/my-deployment')).message).toBe(
      'model "azure/my-deployment" needs AZURE_API_BASE (the resource endpoint, e.g. https://my-resource.openai.azure.com)',
    );
  });

  it('takes ollama/ with no key and no variable at all', () => {
    const resolve = createModelResolver({ env: {}, baseDir: '.' });

    expect(resolve('ollama/llama3.1').id).toBe('ollama/llama3.1');
  });
});
