import { createRateLimiter, type RateLimiter } from '../../src/engine/rate-limiter.ts';

/**
 * The real max_rpm limiter on a clock that only its own waits move: each wait passes at once and is recorded, so a
 * test reads the spacing the limiter imposed instead of timing calls.
 */
export function recordingLimiter(): { readonly limiter: RateLimiter; readonly waits: readonly number[] } {
  let now = 0;
  const waits: number[] = [];
  const limiter = createRateLimiter(
    () => now,
    (ms) => {
      waits.push(ms);
      now += ms;
      return Promise.resolve();
    },
  );
  return { limiter, waits };
}
