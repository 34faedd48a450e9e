import { sleep } from './abortable.ts';

/** Spaces model calls so that one key (an agent) makes at most `requestsPerMinute` of them. */
export interface RateLimiter {
  wait(key: string, requestsPerMinute: number | undefined, signal: AbortSignal): Promise<void>;
}

/** Entries kept before the ones whose spacing has passed are dropped: a long-lived limiter stays small. */
const pruneAbove = 1000;

/**
 * An even-spacing limiter: each call of a key starts at least `60 / rpm` seconds after the previous one.
 * Simpler than a sliding window and never bursts, which is what providers' per-minute limits want.
 */
export function createRateLimiter(
  now: () => number = () => performance.now(),
  wait: (ms: number, signal: AbortSignal) => Promise<void> = sleep,
): RateLimiter {
  const nextStart = new Map<string, number>();
  // Raised after each pruning to twice what stayed, so many keys still spacing out are not scanned on every call.
  let pruneAt = pruneAbove;
  return {
    async wait(key, requestsPerMinute, signal) {
      if (requestsPerMinute === undefined || requestsPerMinute <= 0) return;
      const current = now();
      if (nextStart.size > pruneAt) {
        for (const [other, start] of nextStart) if (start <= current) nextStart.delete(other);
        pruneAt = Math.max(pruneAbove, nextStart.size * 2);
      }
      const start = Math.max(current, nextStart.get(key) ?? current);
      nextStart.set(key, start + 60_000 / requestsPerMinute);
      if (start > current) await wait(start - current, signal);
    },
  };
}

/** The same limiter with every key prefixed: one process-wide limiter, spacing each execution's agents apart. */
export function prefixedLimiter(limiter: RateLimiter, prefix: string): RateLimiter {
  return {
    wait: (key, requestsPerMinute, signal) => limiter.wait(`${prefix}${key}`, requestsPerMinute, signal),
  };
}
