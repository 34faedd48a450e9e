import { CrewdError } from '../domain/errors.ts';

/** The providers crewd speaks to, by crewAI's canonical prefix. */
export type ProviderName =
  | 'openai'
  | 'anthropic'
  | 'gemini'
  | 'azure'
  | 'bedrock'
  | 'ollama'
  | 'groq'
  | 'mistral'
  | 'deepseek'
  | 'openrouter'
  | 'nvidia_nim'
  | 'hosted_vllm'
  | 'replay'
  /** A server that speaks OpenAI's Chat Completions at the `base_url` the crew gives. */
  | 'custom';

/** Where a model name leads: the provider and the name that provider knows the model by. */
export interface ModelRoute {
  readonly provider: ProviderName;
  readonly model: string;
}

/** Every prefix crewd reads, with crewAI's aliases (`claude/`, `google/`, `aws/`, …). */
const prefixes: Readonly<Record<string, ProviderName>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  claude: 'anthropic',
  gemini: 'gemini',
  google: 'gemini',
  azure: 'azure',
  azure_openai: 'azure',
  bedrock: 'bedrock',
  aws: 'bedrock',
  ollama: 'ollama',
  ollama_chat: 'ollama',
  groq: 'groq',
  mistral: 'mistral',
  deepseek: 'deepseek',
  openrouter: 'openrouter',
  nvidia_nim: 'nvidia_nim',
  hosted_vllm: 'hosted_vllm',
  replay: 'replay',
};

/** The prefixes named in messages, without aliases. */
export const knownPrefixes: readonly string[] = [...new Set(Object.values(prefixes))];

/** Bedrock's model ids: a vendor, optionally behind a cross-region inference prefix (`us.anthropic.…`). */
const bedrockModel =
  /^(?:(?:us|eu|apac|global|us-gov)\.)?(?:anthropic|amazon|meta|mistral|cohere|ai21|deepseek|qwen|openai|writer)\./i;

/**
 * Routes a model name the way crewAI does: a known prefix picks the provider; a name without one is an OpenAI
 * model unless crewAI would recognise it as Anthropic's, Gemini's or a Bedrock id. An unknown prefix is refused,
 * unless the crew gives a base URL: then the whole name goes to that OpenAI-compatible server (model names such
 * as `Qwen/Qwen2.5-7B` carry a slash of their own).
 */
export function routeModel(name: string, hasBaseUrl: boolean): ModelRoute {
  const trimmed = name.trim();
  const slash = trimmed.indexOf('/');
  if (slash === -1) return { provider: inferProvider(trimmed), model: trimmed };
  const prefix = trimmed.slice(0, slash).toLowerCase();
  const model = trimmed.slice(slash + 1).trim();
  const provider = prefixes[prefix];
  if (provider === undefined) {
    if (hasBaseUrl) return { provider: 'custom', model: trimmed };
    throw new CrewdError(
      'CONFIG_INVALID',
      `model "${trimmed}" has an unknown provider prefix "${prefix}/"; use one of ${knownPrefixes.map((known) => `${known}/`).join(', ')}, a bare OpenAI name such as gpt-4o-mini, or give base_url for an OpenAI-compatible server`,
    );
  }
  if (model === '') {
    throw new CrewdError('CONFIG_INVALID', `model "${trimmed}" names no model after "${prefix}/"`);
  }
  return { provider, model };
}

function inferProvider(model: string): ProviderName {
  const lower = model.toLowerCase();
  if (lower.startsWith('claude-')) return 'anthropic';
  if (lower.startsWith('gemini-') || lower.startsWith('gemma-')) return 'gemini';
  if (bedrockModel.test(lower)) return 'bedrock';
  return 'openai';
}
