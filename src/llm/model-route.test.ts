import { describe, expect, it } from 'vitest';
import { CrewdError } from '../domain/errors.ts';
import { routeModel } from './model-route.ts';

describe('routeModel', () => {
  it.each([
    ['gpt-4o', 'openai', 'gpt-4o'],
    ['o3-mini', 'openai', 'o3-mini'],
    ['claude-3-5-sonnet-20241022', 'anthropic', 'claude-3-5-sonnet-20241022'],
    ['gemini-2.0-flash', 'gemini', 'gemini-2.0-flash'],
    ['anthropic.claude-3-haiku-20240307-v1:0', 'bedrock', 'anthropic.claude-3-haiku-20240307-v1:0'],
    ['us.amazon.nova-pro-v1:0', 'bedrock', 'us.amazon.nova-pro-v1:0'],
    ['claude/claude-3-opus', 'anthropic', 'claude-3-opus'],
    ['google/gemini-1.5-pro', 'gemini', 'gemini-1.5-pro'],
    ['aws/meta.llama3-70b-instruct-v1:0', 'bedrock', 'meta.llama3-70b-instruct-v1:0'],
    ['azure_openai/prod-gpt4', 'azure', 'prod-gpt4'],
    ['ollama_chat/qwen2.5', 'ollama', 'qwen2.5'],
    ['OpenRouter/mistralai/mixtral-8x7b', 'openrouter', 'mistralai/mixtral-8x7b'],
  ])('routes %s as crewAI does', (name, provider, model) => {
    expect(routeModel(name, false)).toEqual({ provider, model });
  });

  it('gives a name with an unknown prefix whole to the base_url server, and refuses it without one', () => {
    expect(routeModel('meta-llama/Llama-3.1-8B', true)).toEqual({
      provider: 'custom',
      model: 'meta-llama/Llama-3.1-8B',
    });
    expect(() => routeModel('meta-llama/Llama-3.1-8B', false)).toThrow(CrewdError);
  });
});
