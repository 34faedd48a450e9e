import { createAnthropic } from '@ai-sdk/anthropic';
import { createAiSdkModel } from './ai-sdk-model.ts';
import type { CallSettings } from './ai-sdk-model.ts';
import type { ChatModel } from './chat-model.ts';

export const defaultAnthropicBaseURL = 'https://api.anthropic.com/v1';

export interface AnthropicModelOptions {
  /** `anthropic/<model>`, as written in the crew. */
  readonly modelId: string;
  /** The provider's model name, e.g. `claude-sonnet-4-5`. */
  readonly model: string;
  readonly apiKey: string;
  readonly baseURL?: string | undefined;
  readonly timeoutMs: number;
  readonly settings?: CallSettings;
  readonly fetch?: typeof globalThis.fetch;
  readonly now?: () => number;
}

/** A model over Anthropic's Messages API. */
export function createAnthropicModel(options: AnthropicModelOptions): ChatModel {
  const provider = createAnthropic({
    // Given explicitly, so the SDK never falls back to reading the process environment itself.
    baseURL: options.baseURL ?? defaultAnthropicBaseURL,
    apiKey: options.apiKey,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  return createAiSdkModel({
    id: options.modelId,
    languageModel: provider.messages(options.model),
    timeoutMs: options.timeoutMs,
    ...(options.settings === undefined ? {} : { settings: options.settings }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
}
