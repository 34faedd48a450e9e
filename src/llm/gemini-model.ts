import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createAiSdkModel } from './ai-sdk-model.ts';
import type { ChatModel } from './chat-model.ts';
import { commonModelOptions } from './provider-model-options.ts';
import type { ProviderModelOptions } from './provider-model-options.ts';

export const defaultGeminiBaseURL = 'https://generativelanguage.googleapis.com/v1beta';

export interface GeminiModelOptions extends ProviderModelOptions {
  readonly apiKey: string;
  readonly baseURL?: string | undefined;
}

/** A model over Google's Gemini API (`generateContent`). */
export function createGeminiModel(options: GeminiModelOptions): ChatModel {
  const provider = createGoogleGenerativeAI({
    // Given explicitly, so the SDK never falls back to reading the process environment itself.
    baseURL: options.baseURL ?? defaultGeminiBaseURL,
    apiKey: options.apiKey,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  return createAiSdkModel({ ...commonModelOptions(options), languageModel: provider.chat(options.model) });
}
