import { resolve } from 'node:path';
import { canonicalJson } from '../domain/canonical-json.ts';
import type { ModelSpec } from '../domain/crew.ts';
import { CrewdError } from '../domain/errors.ts';
import type { CallSettings } from './ai-sdk-model.ts';
import type { ChatModel, ModelResolver } from './chat-model.ts';
import { createProviderModel } from './create-provider-model.ts';
import { createModelFetch } from './model-fetch.ts';
import type { ModelAdapters } from './model-adapters.ts';
import { routeModel } from './model-route.ts';
import { isHttpUrl, setting } from './provider-env.ts';
import type { ModelEnv } from './provider-env.ts';
import { createReplayRecorder, recordTo } from './recording-model.ts';
import type { ReplayRecorder } from './recording-model.ts';
import { createReplayModel } from './replay-model.ts';
import { withRetries } from './retrying-model.ts';
import type { RetryOptions } from './retrying-model.ts';

export interface ModelResolverOptions {
  /** Provider settings are read from here, never from the process directly. */
  readonly env: ModelEnv;
  /** The crew directory: `replay/<file>` paths are relative to it. */
  readonly baseDir: string;
  /** Limit for one model call; default two minutes. */
  readonly timeoutMs?: number;
  readonly retry?: RetryOptions;
  /** Record every real model answer into this replay file. */
  readonly recordFile?: string;
  /** The HTTP client for model calls; by default `createModelFetch()`, shared by every model of this resolver. */
  readonly fetch?: typeof globalThis.fetch;
  /** Where provider models make their calls: in this thread by default, or a model thread's. */
  readonly adapters?: ModelAdapters;
}

export const defaultModelTimeoutMs = 120_000;

/**
 * Resolves models as crewAI names them (`gpt-4o`, `ollama/llama3.1`, `{model, temperature, …}`) to models, one
 * instance per distinct spec. Every real provider goes through crewd's own HTTP client, timeout and retries.
 */
export function createModelResolver(options: ModelResolverOptions): ModelResolver {
  const cache = new Map<string, ChatModel>();
  const timeoutMs = options.timeoutMs ?? defaultModelTimeoutMs;
  const strictReplay = replayStrictness(options.env);
  let recorder: ReplayRecorder | undefined;
  let modelFetch: typeof globalThis.fetch | undefined;

  function real(model: ChatModel): ChatModel {
    const retrying = withRetries(model, options.retry);
    if (options.recordFile === undefined) return retrying;
    recorder ??= createReplayRecorder(options.recordFile);
    return recordTo(retrying, recorder);
  }

  function create(spec: ModelSpec): ChatModel {
    const id = spec.model.trim();
    if (spec.baseUrl !== undefined && !isHttpUrl(spec.baseUrl)) {
      throw new CrewdError(
        'CONFIG_INVALID',
        `model "${id}" has a base_url that is not an absolute http(s) URL`,
      );
    }
    const route = routeModel(id, spec.baseUrl !== undefined);
    if (route.provider === 'replay') {
      return createReplayModel({
        id,
        filePath: resolve(options.baseDir, route.model),
        strict: strictReplay,
      });
    }
    const settings = callSettings(spec);
    return real(
      createProviderModel(
        route,
        spec,
        options.env,
        {
          modelId: id,
          model: route.model,
          timeoutMs,
          ...(settings === undefined ? {} : { settings }),
          fetch: (modelFetch ??= options.fetch ?? createModelFetch()),
        },
        options.adapters,
      ),
    );
  }

  return (model) => {
    const spec = typeof model === 'string' ? { model } : model;
    const key = canonicalJson(spec);
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    const created = create(spec);
    cache.set(key, created);
    return created;
  };
}

/**
 * `CREWD_REPLAY_STRICT=1`: replay models answer only what their files recorded, and anything else is an error, as
 * tests and recordings want. Unset (or 0), they stand in for what is missing, so a newcomer's own topic runs.
 */
function replayStrictness(env: ModelEnv): boolean {
  const value = setting(env, 'CREWD_REPLAY_STRICT');
  if (value === undefined || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw new CrewdError('CONFIG_INVALID', 'CREWD_REPLAY_STRICT must be 1 or 0');
}

function callSettings(spec: ModelSpec): CallSettings | undefined {
  if (spec.temperature === undefined && spec.maxTokens === undefined && spec.topP === undefined)
    return undefined;
  return {
    ...(spec.temperature === undefined ? {} : { temperature: spec.temperature }),
    ...(spec.maxTokens === undefined ? {} : { maxOutputTokens: spec.maxTokens }),
    ...(spec.topP === undefined ? {} : { topP: spec.topP }),
  };
}
