import { backoffDelayMs } from '../domain/backoff.ts';
import type { Backoff } from '../domain/backoff.ts';
import { isStoreUnavailable, type StoreUnavailableError } from '../store/store-unavailable.ts';

export interface RetryWhileUnavailableOptions {
  /** Gives up (rethrowing the last store error) once aborted: the process stops, or the execution was taken. */
  readonly signal?: AbortSignal;
  /** Hears of each attempt the store could not serve. */
  readonly onUnavailable?: (error: StoreUnavailableError) => void;
  /** Milliseconds to wait before attempt `n` (1, 2, …); doubling from 50 ms to at most 2 s unless given. */
  readonly delayMs?: (attempt: number) => number;
}

/** 50, 100, 200 … 2,000, 2,000 … ms, each shortened by up to a quarter so processes do not retry in step. */
export const storeOutageBackoff: Backoff = { firstMs: 50, maxMs: 2_000, jitter: 0.25 };

/**
 * Runs `work` until the store can serve it: an outage of the database (unreachable, busy, disk full or read-only)
 * is waited out with backoff, for as long as it lasts; any other error is thrown at once.
 */
export async function retryWhileUnavailable<T>(
  work: () => Promise<T>,
  options: RetryWhileUnavailableOptions = {},
): Promise<T> {
  const delayMs = options.delayMs ?? ((attempt: number) => backoffDelayMs(attempt - 1, storeOutageBackoff));
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (!isStoreUnavailable(error)) throw error;
      options.onUnavailable?.(error);
      if (options.signal?.aborted === true) throw error;
      const stopped = await pause(delayMs(attempt), options.signal);
      if (stopped) throw error;
    }
  }
}

/** Resolves after `ms`, or at once with true when the signal aborts first. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(false);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
