import type { ModelSpec } from '../domain/crew.ts';
import { CrewdError } from '../domain/errors.ts';
import type { BedrockCredentials } from './bedrock-model.ts';
import type { ChatModel } from './chat-model.ts';
import { compatibleProviders } from './compatible-providers.ts';
import type { CompatibleProvider } from './compatible-providers.ts';
import { describeWays, keyVariables, providerCredentials } from './provider-credentials.ts';
import type { ModelRoute } from './model-route.ts';
import { inProcessAdapters, type ModelAdapters } from './model-adapters.ts';
import { baseUrlSetting, setting, trimSlashes } from './provider-env.ts';
import type { ModelEnv } from './provider-env.ts';
import type { ProviderModelOptions } from './provider-model-options.ts';

/** Azure's generally available API version, used when AZURE_API_VERSION is not set. */
export const defaultAzureApiVersion = '2024-10-21';
/** crewAI's default region for Bedrock. */
export const defaultBedrockRegion = 'us-east-1';

/**
 * The model of a real provider, with its key and base URL taken from the crew's `llm` first, then from crewAI's
 * environment variables, then the provider's default. A missing key is refused here, naming the variable; the
 * provider's adapter is made by `adapters`: in this thread by default, loading in the background (see `lazyModel`).
 */
export function createProviderModel(
  route: ModelRoute,
  spec: ModelSpec,
  env: ModelEnv,
  common: ProviderModelOptions,
  adapters: ModelAdapters = inProcessAdapters,
): ChatModel {
  const id = common.modelId;
  const needs = (what: string): CrewdError => new CrewdError('CONFIG_INVALID', `model "${id}" needs ${what}`);
  switch (route.provider) {
    case 'openai': {
      const apiKey = spec.apiKey ?? setting(env, ...keyVariables('openai'));
      const baseURL = spec.baseUrl ?? baseUrlSetting(env, ...(providerCredentials.openai.unlessSet ?? []));
      if (apiKey === undefined && baseURL === undefined) {
        throw needs('OPENAI_API_KEY (or OPENAI_BASE_URL for a local OpenAI-compatible server)');
      }
      return adapters('openai', { ...common, apiKey, baseURL });
    }
    case 'anthropic': {
      const apiKey = spec.apiKey ?? setting(env, ...keyVariables('anthropic'));
      if (apiKey === undefined) throw needs(describeWays(providerCredentials.anthropic.ways));
      const base = spec.baseUrl ?? baseUrlSetting(env, 'ANTHROPIC_BASE_URL', 'ANTHROPIC_API_BASE');
      // Anthropic's own clients take the base URL without the version; the Messages path needs it.
      return adapters('anthropic', {
        ...common,
        apiKey,
        baseURL: base === undefined ? undefined : withV1(base),
      });
    }
    case 'gemini': {
      const apiKey = spec.apiKey ?? setting(env, ...keyVariables('gemini'));
      if (apiKey === undefined) throw needs(describeWays(providerCredentials.gemini.ways));
      const baseURL = spec.baseUrl ?? baseUrlSetting(env, 'GEMINI_API_BASE');
      return adapters('gemini', { ...common, apiKey, baseURL });
    }
    case 'azure': {
      const apiKey = spec.apiKey ?? setting(env, ...keyVariables('azure'));
      if (apiKey === undefined) throw needs(describeWays(providerCredentials.azure.ways));
      const endpoint = spec.baseUrl ?? baseUrlSetting(env, 'AZURE_API_BASE', 'AZURE_ENDPOINT');
      if (endpoint === undefined) {
        throw needs('AZURE_API_BASE (the resource endpoint, e.g. https://my-resource.openai.azure.com)');
      }
      const apiVersion = setting(env, 'AZURE_API_VERSION') ?? defaultAzureApiVersion;
      return adapters('azure', { ...common, apiKey, endpoint, apiVersion });
    }
    case 'bedrock':
      return adapters('bedrock', {
        ...common,
        region: setting(env, 'AWS_REGION_NAME', 'AWS_DEFAULT_REGION', 'AWS_REGION') ?? defaultBedrockRegion,
        credentials: bedrockCredentials(env, needs),
        baseURL: spec.baseUrl,
      });
    case 'custom':
      return adapters('openai-compatible', {
        ...common,
        providerName: 'custom',
        // The router only sends a model here when the crew gave a base URL.
        baseURL: spec.baseUrl ?? '',
        apiKey: spec.apiKey,
        structuredOutputs: true,
      });
    case 'replay':
      throw new CrewdError('CONFIG_INVALID', `model "${id}" is not a provider model`);
    case 'ollama':
    case 'groq':
    case 'mistral':
    case 'deepseek':
    case 'openrouter':
    case 'nvidia_nim':
    case 'hosted_vllm': {
      const provider = compatibleProviders[route.provider];
      if (provider === undefined) throw new CrewdError('CONFIG_INVALID', `model "${id}" has no provider`);
      return compatibleModel(route.provider, provider, spec, env, common, needs, adapters);
    }
  }
}

function compatibleModel(
  name: string,
  provider: CompatibleProvider,
  spec: ModelSpec,
  env: ModelEnv,
  common: ProviderModelOptions,
  needs: (what: string) => CrewdError,
  adapters: ModelAdapters,
): ChatModel {
  const apiKey = spec.apiKey ?? setting(env, ...provider.keyVariables);
  if (apiKey === undefined && provider.keyRequired) throw needs(provider.keyVariables.join(' or '));
  let baseURL = spec.baseUrl ?? compatibleBaseUrl(env, provider.baseUrlVariables) ?? provider.defaultBaseUrl;
  // Ollama is configured by its root URL (crewAI's and Ollama's own convention); its OpenAI API is under /v1.
  if (name === 'ollama') baseURL = withV1(baseURL);
  return adapters('openai-compatible', {
    ...common,
    providerName: name,
    baseURL: trimSlashes(baseURL),
    apiKey,
    structuredOutputs: provider.structuredOutputs,
  });
}

/** A base URL variable; OLLAMA_HOST is often written as `host:port`, which means plain http. */
function compatibleBaseUrl(env: ModelEnv, names: readonly string[]): string | undefined {
  const host = setting(env, 'OLLAMA_HOST');
  const withScheme =
    host === undefined || /^[a-z]+:\/\//i.test(host) ? env : { ...env, OLLAMA_HOST: `http://${host}` };
  return baseUrlSetting(withScheme, ...names);
}

function bedrockCredentials(env: ModelEnv, needs: (what: string) => CrewdError): BedrockCredentials {
  const accessKeyId = setting(env, 'AWS_ACCESS_KEY_ID');
  const secretAccessKey = setting(env, 'AWS_SECRET_ACCESS_KEY');
  if (accessKeyId !== undefined && secretAccessKey !== undefined) {
    return { kind: 'aws', accessKeyId, secretAccessKey, sessionToken: setting(env, 'AWS_SESSION_TOKEN') };
  }
  const apiKey = setting(env, 'AWS_BEARER_TOKEN_BEDROCK');
  if (apiKey !== undefined) return { kind: 'api-key', apiKey };
  throw needs(describeWays(providerCredentials.bedrock.ways));
}

/** `base` ending in `/v1`, as given or with it added. */
function withV1(base: string): string {
  const trimmed = trimSlashes(base);
  return /\/v1$/i.test(trimmed) ? trimmed : `${trimmed}/v1`;
}
