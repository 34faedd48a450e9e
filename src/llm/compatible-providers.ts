import type { ProviderName } from './model-route.ts';

/** A provider that speaks OpenAI's Chat Completions at a base URL of its own. */
export interface CompatibleProvider {
  readonly defaultBaseUrl: string;
  /** Variables that may hold the key, in the order read. */
  readonly keyVariables: readonly string[];
  /** Local servers take no key. */
  readonly keyRequired: boolean;
  /** Variables that may point the provider elsewhere, in the order read (crewAI's name, then litellm's). */
  readonly baseUrlVariables: readonly string[];
  /** Whether the server takes a JSON schema in `response_format` (otherwise plain JSON mode). */
  readonly structuredOutputs: boolean;
}

/** crewAI's (and litellm's) defaults and variables for the providers reached through the OpenAI wire format. */
export const compatibleProviders: Partial<Record<ProviderName, CompatibleProvider>> = {
  ollama: {
    defaultBaseUrl: 'http://localhost:11434',
    keyVariables: ['OLLAMA_API_KEY'],
    keyRequired: false,
    baseUrlVariables: ['OLLAMA_API_BASE', 'OLLAMA_HOST'],
    structuredOutputs: true,
  },
  groq: {
    defaultBaseUrl: 'https://api.groq.com/openai/v1',
    keyVariables: ['GROQ_API_KEY'],
    keyRequired: true,
    baseUrlVariables: ['GROQ_API_BASE'],
    structuredOutputs: false,
  },
  mistral: {
    defaultBaseUrl: 'https://api.mistral.ai/v1',
    keyVariables: ['MISTRAL_API_KEY'],
    keyRequired: true,
    baseUrlVariables: ['MISTRAL_API_BASE'],
    structuredOutputs: true,
  },
  deepseek: {
    defaultBaseUrl: 'https://api.deepseek.com/v1',
    keyVariables: ['DEEPSEEK_API_KEY'],
    keyRequired: true,
    baseUrlVariables: ['DEEPSEEK_BASE_URL', 'DEEPSEEK_API_BASE'],
    // DeepSeek takes JSON mode only.
    structuredOutputs: false,
  },
  openrouter: {
    defaultBaseUrl: 'https://openrouter.ai/api/v1',
    keyVariables: ['OPENROUTER_API_KEY'],
    keyRequired: true,
    baseUrlVariables: ['OPENROUTER_BASE_URL', 'OPENROUTER_API_BASE'],
    structuredOutputs: true,
  },
  nvidia_nim: {
    defaultBaseUrl: 'https://integrate.api.nvidia.com/v1',
    keyVariables: ['NVIDIA_NIM_API_KEY'],
    keyRequired: true,
    baseUrlVariables: ['NVIDIA_NIM_API_BASE'],
    structuredOutputs: true,
  },
  hosted_vllm: {
    defaultBaseUrl: 'http://localhost:8000/v1',
    keyVariables: ['VLLM_API_KEY'],
    keyRequired: false,
    baseUrlVariables: ['VLLM_BASE_URL', 'HOSTED_VLLM_API_BASE'],
    structuredOutputs: true,
  },
};
