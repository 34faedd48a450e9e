import type { EngineEvent } from '../domain/events.ts';
import { createRateLimiter } from './rate-limiter.ts';
import type { RateLimiter } from './rate-limiter.ts';
import type { PlannedModelCall, RunCrewRequest } from './run-request.ts';
import { createToolCache } from './tool-cache.ts';
import type { ToolCache } from './tool-cache.ts';

/**
 * Wraps whatever the event listener threw, so the engine passes it through untouched instead of reporting it
 * as a task failure (the listener may stop the run on purpose, e.g. when the execution was cancelled).
 */
export class ListenerError extends Error {
  constructor(readonly thrown: unknown) {
    super('The event listener failed');
    this.name = 'ListenerError';
  }
}

/** What every part of one run shares: the request, the per-agent rate limiter and the event sink. */
export interface RunContext {
  readonly request: RunCrewRequest;
  readonly limiter: RateLimiter;
  readonly toolCache: ToolCache;
  emit(event: EngineEvent): Promise<void>;
  /** The request's `beforeModelCall`, its failure passed through like a listener's. */
  beforeModelCall(call: PlannedModelCall): Promise<void>;
}

export function createRunContext(request: RunCrewRequest): RunContext {
  return {
    request,
    limiter: request.limiter ?? createRateLimiter(),
    toolCache: request.toolCache ?? createToolCache(),
    async emit(event) {
      try {
        await request.onEvent(event);
      } catch (error) {
        throw new ListenerError(error);
      }
    },
    async beforeModelCall(call) {
      if (request.beforeModelCall === undefined) return;
      try {
        await request.beforeModelCall(call);
      } catch (error) {
        throw new ListenerError(error);
      }
    },
  };
}
