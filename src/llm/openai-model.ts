import { createOpenAI } from '@ai-sdk/openai';
import { createAiSdkModel } from './ai-sdk-model.ts';
import type { CallSettings } from './ai-sdk-model.ts';
import type { ChatModel } from './chat-model.ts';

export const defaultOpenAIBaseURL = 'https://api.openai.com/v1';

export interface OpenAIModelOptions {
  /** `openai/<model>`, as written in the crew. */
  readonly modelId: string;
  /** The provider's model name, e.g. `gpt-4o-mini`. */
  readonly model: string;
  /** Absent for local OpenAI-compatible servers that take no key: no Authorization header is sent. */
  readonly apiKey?: string | undefined;
  readonly baseURL?: string | undefined;
  readonly timeoutMs: number;
  readonly settings?: CallSettings;
  readonly fetch?: typeof globalThis.fetch;
  readonly now?: () => number;
}

/** A model over the Chat Completions API, which every OpenAI-compatible server (Ollama, vLLM…) speaks. */
export function createOpenAIModel(options: OpenAIModelOptions): ChatModel {
  const baseFetch = options.fetch ?? globalThis.fetch;
  const provider = createOpenAI({
    // Both given explicitly, so the SDK never falls back to reading the process environment itself.
    baseURL: options.baseURL ?? defaultOpenAIBaseURL,
    apiKey: options.apiKey ?? '',
    fetch: options.apiKey === undefined ? withoutAuthorization(baseFetch) : baseFetch,
  });
  return createAiSdkModel({
    id: options.modelId,
    languageModel: provider.chat(options.model),
    timeoutMs: options.timeoutMs,
    ...(options.settings === undefined ? {} : { settings: options.settings }),
    // Strict schemas demand every property be required; crews' schemas often are not, and the engine
    // validates the answer against the schema anyway.
    providerOptions: { openai: { strictJsonSchema: false } },
    ...(options.now === undefined ? {} : { now: options.now }),
  });
}

function withoutAuthorization(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.delete('authorization');
    return fetch(input, { ...init, headers });
  };
}
