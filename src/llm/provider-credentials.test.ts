import { describe, expect, it } from 'vitest';
import type { ProviderName } from './model-route.ts';
import { describeWays, modelCredentialNeed, providerCredentials } from './provider-credentials.ts';
import { createModelResolver } from './resolve-model.ts';

/** A model of each provider that takes credentials from the environment. */
const modelOf: Partial<Record<ProviderName, string>> = {
  openai: 'openai/gpt-4o-mini',
  anthropic: 'anthropic/claude-sonnet-4-5',
  gemini: 'gemini/gemini-2.0-flash',
  azure: 'azure/gpt-4o',
  bedrock: 'bedrock/anthropic.claude-3-haiku',
  groq: 'groq/llama-3.1-8b-instant',
  mistral: 'mistral/mistral-small-latest',
  deepseek: 'deepseek/deepseek-chat',
  openrouter: 'openrouter/openai/gpt-4o-mini',
  nvidia_nim: 'nvidia_nim/meta/llama-3.1-8b-instruct',
};

const resolve = (model: string, env: Record<string, string>): unknown =>
  createModelResolver({ env, baseDir: '.' })(model);

describe('the provider credentials table', () => {
  const required = Object.entries(providerCredentials).filter(([, credentials]) => credentials.required);

  it('names a model for every provider whose credentials are required', () => {
    expect(required.map(([provider]) => provider).sort()).toEqual(Object.keys(modelOf).sort());
  });

  for (const [provider, credentials] of required) {
    const model = modelOf[provider as ProviderName]!;
    // Azure also needs its endpoint, which is not a credential.
    const base: Record<string, string> =
      provider === 'azure' ? { AZURE_API_BASE: 'https://r.example.test' } : {};

    it(`is what resolving a ${provider} model asks for, and each way it lists is enough`, () => {
      expect(modelCredentialNeed({ model }, base)).toEqual({ provider, ways: credentials.ways });
      expect(() => resolve(model, base)).toThrow(`needs ${describeWays(credentials.ways)}`);
      for (const way of credentials.ways) {
        const env = { ...base, ...Object.fromEntries(way.map((variable) => [variable, 'x'])) };
        expect(() => resolve(model, env)).not.toThrow();
      }
    });
  }

  it('asks nothing of replay files, local servers, a key in the llm, or OpenAI pointed at a compatible server', () => {
    expect(modelCredentialNeed({ model: 'replay/crew.replay.json' }, {})).toBeUndefined();
    expect(modelCredentialNeed({ model: 'ollama/llama3.1' }, {})).toBeUndefined();
    expect(modelCredentialNeed({ model: 'anthropic/claude-sonnet-4-5', apiKey: 'k' }, {})).toBeUndefined();
    expect(
      modelCredentialNeed({ model: 'gpt-4o-mini' }, { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' }),
    ).toBeUndefined();
    expect(
      modelCredentialNeed({ model: 'Qwen/Qwen2.5', baseUrl: 'http://127.0.0.1:1/v1' }, {}),
    ).toBeUndefined();
  });
});
