import { resolve } from 'node:path';
import { CrewdError } from '../domain/errors.ts';
import { createAnthropicModel } from './anthropic-model.ts';
import type { ChatModel, ModelResolver } from './chat-model.ts';
import { createModelFetch } from './model-fetch.ts';
import { createOpenAIModel } from './openai-model.ts';
import { createReplayRecorder, recordTo } from './recording-model.ts';
import type { ReplayRecorder } from './recording-model.ts';
import { createReplayModel } from './replay-model.ts';
import { withRetries } from './retrying-model.ts';
import type { RetryOptions } from './retrying-model.ts';

export interface ModelResolverOptions {
  /** Provider settings are read from here, never from the process directly. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The crew directory: `replay/<file>` paths are relative to it. */
  readonly baseDir: string;
  /** Limit for one model call; default two minutes. */
  readonly timeoutMs?: number;
  readonly retry?: RetryOptions;
  /** Record every real model answer into this replay file. */
  readonly recordFile?: string;
  /** The HTTP client for model calls; by default `createModelFetch()`, shared by every model of this resolver. */
  readonly fetch?: typeof globalThis.fetch;
}

export const defaultModelTimeoutMs = 120_000;

const examples = 'openai/gpt-4o-mini, anthropic/claude-sonnet-4-5 or replay/<file>';

/** Resolves `provider/model` strings to models, one instance per id. */
export function createModelResolver(options: ModelResolverOptions): ModelResolver {
  const cache = new Map<string, ChatModel>();
  const timeoutMs = options.timeoutMs ?? defaultModelTimeoutMs;
  let recorder: ReplayRecorder | undefined;
  let modelFetch: typeof globalThis.fetch | undefined;

  function real(model: ChatModel): ChatModel {
    const retrying = withRetries(model, options.retry);
    if (options.recordFile === undefined) return retrying;
    recorder ??= createReplayRecorder(options.recordFile);
    return recordTo(retrying, recorder);
  }

  function create(modelId: string): ChatModel {
    const match = /^([^/\s]+)\/(\S.*)$/.exec(modelId.trim());
    if (match === null) {
      throw new CrewdError(
        'CONFIG_INVALID',
        `model "${modelId}" must be written as provider/model, e.g. ${examples}`,
      );
    }
    const [, provider = '', model = ''] = match;
    const id = modelId.trim();
    const fetch = { fetch: (modelFetch ??= options.fetch ?? createModelFetch()) };
    switch (provider) {
      case 'openai': {
        const apiKey = setting(options.env, 'OPENAI_API_KEY');
        const baseURL =
          baseUrlSetting(options.env, 'OPENAI_BASE_URL') ?? baseUrlSetting(options.env, 'OPENAI_API_BASE');
        if (apiKey === undefined && baseURL === undefined) {
          throw new CrewdError(
            'CONFIG_INVALID',
            `model "${id}" needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local OpenAI-compatible server)`,
          );
        }
        return real(createOpenAIModel({ modelId: id, model, apiKey, baseURL, timeoutMs, ...fetch }));
      }
      case 'anthropic': {
        const apiKey = setting(options.env, 'ANTHROPIC_API_KEY');
        if (apiKey === undefined)
          throw new CrewdError('CONFIG_INVALID', `model "${id}" needs ANTHROPIC_API_KEY`);
        const baseURL = baseUrlSetting(options.env, 'ANTHROPIC_BASE_URL');
        return real(createAnthropicModel({ modelId: id, model, apiKey, baseURL, timeoutMs, ...fetch }));
      }
      case 'replay':
        return createReplayModel({ id, filePath: resolve(options.baseDir, model) });
      default:
        throw new CrewdError(
          'CONFIG_INVALID',
          `model "${modelId}" has an unknown provider "${provider}"; use ${examples}`,
        );
    }
  }

  return (modelId) => {
    const cached = cache.get(modelId);
    if (cached !== undefined) return cached;
    const model = create(modelId);
    cache.set(modelId, model);
    return model;
  };
}

/** A provider's base URL setting: an absolute http(s) URL, or unset. */
function baseUrlSetting(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const value = setting(env, name);
  if (value !== undefined && !(/^https?:\/\/[^/]/i.test(value) && URL.canParse(value))) {
    throw new CrewdError(
      'CONFIG_INVALID',
      `${name} must be an absolute http(s) URL, e.g. http://localhost:11434/v1`,
    );
  }
  return value;
}

/** An environment setting; empty counts as unset. */
function setting(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}
