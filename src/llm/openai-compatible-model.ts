import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createAiSdkModel } from './ai-sdk-model.ts';
import type { ChatModel } from './chat-model.ts';
import { commonModelOptions } from './provider-model-options.ts';
import type { ProviderModelOptions } from './provider-model-options.ts';

export interface OpenAICompatibleModelOptions extends ProviderModelOptions {
  /** The provider's name, which keys its provider options. */
  readonly providerName: string;
  /** Ends before `/chat/completions`, e.g. `https://api.groq.com/openai/v1`. */
  readonly baseURL: string;
  /** Absent for servers that take no key: no Authorization header is sent. */
  readonly apiKey?: string | undefined;
  /** Whether the server takes a JSON schema in `response_format`; otherwise it is asked for plain JSON. */
  readonly structuredOutputs: boolean;
}

/** A model over a server that speaks OpenAI's Chat Completions at its own base URL (Groq, Mistral, Ollama…). */
export function createOpenAICompatibleModel(options: OpenAICompatibleModelOptions): ChatModel {
  const provider = createOpenAICompatible({
    name: options.providerName,
    baseURL: options.baseURL,
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    supportsStructuredOutputs: options.structuredOutputs,
  });
  return createAiSdkModel({
    ...commonModelOptions(options),
    languageModel: provider.chatModel(options.model),
  });
}
