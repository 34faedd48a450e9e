import type { AnthropicModelOptions } from './anthropic-model.ts';
import type { AzureModelOptions } from './azure-model.ts';
import type { BedrockModelOptions } from './bedrock-model.ts';
import type { ChatModel } from './chat-model.ts';
import type { GeminiModelOptions } from './gemini-model.ts';
import { lazyModel } from './lazy-model.ts';
import type { OpenAICompatibleModelOptions } from './openai-compatible-model.ts';
import type { OpenAIModelOptions } from './openai-model.ts';

/** The options of each provider adapter, by the adapter's name. */
export interface AdapterOptions {
  readonly openai: OpenAIModelOptions;
  readonly anthropic: AnthropicModelOptions;
  readonly gemini: GeminiModelOptions;
  readonly azure: AzureModelOptions;
  readonly bedrock: BedrockModelOptions;
  readonly 'openai-compatible': OpenAICompatibleModelOptions;
}

export type AdapterName = keyof AdapterOptions;

/**
 * Where a provider model's calls are made: `inProcessAdapters` makes them on the calling thread, a model thread
 * (`model-thread.ts`) on a thread of its own. Credentials are checked before either is asked.
 */
export type ModelAdapters = <A extends AdapterName>(adapter: A, options: AdapterOptions[A]) => ChatModel;

/** The adapter loads in the background from the moment the model is resolved (see `lazyModel`). */
export const inProcessAdapters: ModelAdapters = (adapter, options) =>
  lazyModel(options.modelId, () => loadAdapter(adapter, options));

/** Each provider's adapter module, loaded on demand: a process loads only the providers its crews name. */
const loaders: { readonly [A in AdapterName]: (options: AdapterOptions[A]) => Promise<ChatModel> } = {
  openai: async (options) => (await import('./openai-model.ts')).createOpenAIModel(options),
  anthropic: async (options) => (await import('./anthropic-model.ts')).createAnthropicModel(options),
  gemini: async (options) => (await import('./gemini-model.ts')).createGeminiModel(options),
  azure: async (options) => (await import('./azure-model.ts')).createAzureModel(options),
  bedrock: async (options) => (await import('./bedrock-model.ts')).createBedrockModel(options),
  'openai-compatible': async (options) =>
    (await import('./openai-compatible-model.ts')).createOpenAICompatibleModel(options),
};

export function loadAdapter<A extends AdapterName>(
  adapter: A,
  options: AdapterOptions[A],
): Promise<ChatModel> {
  const load: (options: AdapterOptions[A]) => Promise<ChatModel> = loaders[adapter];
  return load(options);
}
