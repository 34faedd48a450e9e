import { createAzure } from '@ai-sdk/azure';
import { createAiSdkModel } from './ai-sdk-model.ts';
import type { ChatModel } from './chat-model.ts';
import { commonModelOptions } from './provider-model-options.ts';
import type { ProviderModelOptions } from './provider-model-options.ts';
import { trimSlashes } from './provider-env.ts';

export interface AzureModelOptions extends ProviderModelOptions {
  readonly apiKey: string;
  /** The resource's endpoint, e.g. `https://my-resource.openai.azure.com`. */
  readonly endpoint: string;
  readonly apiVersion: string;
}

/**
 * A model over an Azure OpenAI deployment: `model` is the deployment name, called at
 * `{endpoint}/openai/deployments/{deployment}/chat/completions?api-version=…` with an `api-key` header.
 */
export function createAzureModel(options: AzureModelOptions): ChatModel {
  const provider = createAzure({
    baseURL: `${resourceRoot(options.endpoint)}/openai`,
    apiKey: options.apiKey,
    apiVersion: options.apiVersion,
    useDeploymentBasedUrls: true,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  return createAiSdkModel({
    ...commonModelOptions(options),
    languageModel: provider.chat(options.model),
    // As for OpenAI: crews' schemas are often not strict, and the engine checks answers itself.
    providerOptions: { openai: { strictJsonSchema: false } },
  });
}

/** The endpoint up to the resource, also when it was given with `/openai/…` already on it. */
function resourceRoot(endpoint: string): string {
  const url = trimSlashes(endpoint);
  const at = url.toLowerCase().indexOf('/openai');
  return at === -1 ? url : url.slice(0, at);
}
