import { setTimeout as delay } from 'node:timers/promises';
import { backoffDelayMs } from '../domain/backoff.ts';
import { ModelCallError } from '../domain/errors.ts';
import type { ChatModel, ChatRequest, ChatResponse } from './chat-model.ts';

export interface RetryOptions {
  /** Tries after the first; 4 means at most 5 calls. */
  readonly maxRetries?: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /** Waits `ms`; rejects when the signal aborts. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** A number in [0, 1), for the jitter. */
  readonly random?: () => number;
}

/**
 * Retries retryable `ModelCallError`s with exponential backoff and full jitter, or after the provider's
 * `Retry-After` when it gave one. Other errors, and aborts, end at once.
 */
export function withRetries(model: ChatModel, options: RetryOptions = {}): ChatModel {
  const maxRetries = options.maxRetries ?? 4;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const sleep = options.sleep ?? ((ms: number, signal: AbortSignal) => delay(ms, undefined, { signal }));
  const random = options.random ?? Math.random;

  async function generate(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await model.generate(request, signal);
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (!(error instanceof ModelCallError) || !error.retryable) throw error;
        if (attempt >= maxRetries) {
          // Retries are spent: not retryable any more, so callers fail instead of trying again.
          throw new ModelCallError(`model call failed after ${attempt + 1} attempts: ${error.message}`, {
            ...(error.status === undefined ? {} : { status: error.status }),
            retryable: false,
            cause: error,
          });
        }
        const delayMs =
          error.retryAfterSeconds === undefined
            ? Math.floor(
                backoffDelayMs(attempt, { firstMs: baseDelayMs, maxMs: maxDelayMs, jitter: 1 }, random),
              )
            : Math.min(maxDelayMs, Math.ceil(error.retryAfterSeconds * 1000));
        await sleep(delayMs, signal).catch((sleepError: unknown) => {
          if (signal.aborted) throw signal.reason;
          throw sleepError;
        });
        signal.throwIfAborted();
      }
    }
  }

  return { id: model.id, generate };
}
