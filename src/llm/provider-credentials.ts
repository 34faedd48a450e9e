import type { ModelSpec } from '../domain/crew.ts';
import { compatibleProviders } from './compatible-providers.ts';
import { routeModel } from './model-route.ts';
import type { ProviderName } from './model-route.ts';
import { setting } from './provider-env.ts';
import type { ModelEnv } from './provider-env.ts';

/** The variables a provider's models read their credentials from. */
export interface ProviderCredentials {
  /** Ways to give them, in the order read: any one way is enough, and each way needs every variable it names. */
  readonly ways: readonly (readonly string[])[];
  /** Whether a model runs without them (a local server). */
  readonly required: boolean;
  /** Variables that, when set, make them unnecessary: OpenAI's base URL pointing at a compatible server. */
  readonly unlessSet?: readonly string[];
}

/**
 * Where each provider's credentials come from: the one list that both resolving a model (createProviderModel) and
 * `crewd check` read, so what check says is needed is what a start refuses without.
 */
export const providerCredentials: Readonly<Record<ProviderName, ProviderCredentials>> = {
  openai: {
    ways: [['OPENAI_API_KEY']],
    required: true,
    unlessSet: ['OPENAI_BASE_URL', 'OPENAI_API_BASE'],
  },
  anthropic: { ways: [['ANTHROPIC_API_KEY']], required: true },
  gemini: { ways: [['GEMINI_API_KEY'], ['GOOGLE_API_KEY']], required: true },
  azure: { ways: [['AZURE_API_KEY']], required: true },
  bedrock: {
    ways: [['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'], ['AWS_BEARER_TOKEN_BEDROCK']],
    required: true,
  },
  ollama: compatibleCredentials('ollama'),
  groq: compatibleCredentials('groq'),
  mistral: compatibleCredentials('mistral'),
  deepseek: compatibleCredentials('deepseek'),
  openrouter: compatibleCredentials('openrouter'),
  nvidia_nim: compatibleCredentials('nvidia_nim'),
  hosted_vllm: compatibleCredentials('hosted_vllm'),
  // A recorded file answers; a custom server takes only the api_key the crew's llm gives.
  replay: { ways: [], required: false },
  custom: { ways: [], required: false },
};

function compatibleCredentials(name: ProviderName): ProviderCredentials {
  const provider = compatibleProviders[name];
  if (provider === undefined) return { ways: [], required: false };
  return { ways: provider.keyVariables.map((variable) => [variable]), required: provider.keyRequired };
}

/** The variables of `provider`'s single-variable ways, in the order read: where its API key is looked up. */
export function keyVariables(provider: ProviderName): string[] {
  return providerCredentials[provider].ways.filter((way) => way.length === 1).map((way) => way[0]!);
}

/** The ways in words: `AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_BEARER_TOKEN_BEDROCK)`. */
export function describeWays(ways: readonly (readonly string[])[]): string {
  const [first, ...others] = ways.map((way) => way.join(' and '));
  return others.length === 0 ? (first ?? '') : `${first} (or ${others.join(' or ')})`;
}

/** What a model needs from the environment before it can be called. */
export interface ModelCredentialNeed {
  readonly provider: ProviderName;
  readonly ways: readonly (readonly string[])[];
}

/**
 * The credentials `spec` needs from the environment, or undefined when it needs none: a replay file, a local
 * server, a key written in the crew's llm, OpenAI pointed at a compatible server, or a name that does not route
 * (which the model's own check reports).
 */
export function modelCredentialNeed(spec: ModelSpec, env: ModelEnv): ModelCredentialNeed | undefined {
  let provider: ProviderName;
  try {
    provider = routeModel(spec.model, spec.baseUrl !== undefined).provider;
  } catch {
    return undefined;
  }
  const credentials = providerCredentials[provider];
  if (!credentials.required || credentials.ways.length === 0 || spec.apiKey !== undefined) return undefined;
  if (credentials.unlessSet !== undefined) {
    if (spec.baseUrl !== undefined || setting(env, ...credentials.unlessSet) !== undefined) return undefined;
  }
  return { provider, ways: credentials.ways };
}
