/** Waits between retries that double from `firstMs` up to `maxMs`, with an optional random share. */
export interface Backoff {
  readonly firstMs: number;
  readonly maxMs: number;
  /**
   * How much of each wait is left to chance, 0 to 1: the wait is drawn between `(1 - jitter)` of the full wait
   * and the full wait, so that many clients retrying after the same failure do not retry in step. 1 is "full
   * jitter" (anything from 0 to the full wait); 0 unless given.
   */
  readonly jitter?: number;
}

/**
 * Milliseconds to wait before retry `retry` (0 for the first retry): `firstMs` doubled `retry` times, never more
 * than `maxMs`, less its random share. `random` returns a number in [0, 1).
 */
export function backoffDelayMs(retry: number, backoff: Backoff, random: () => number = Math.random): number {
  // The exponent is capped so a failure lasting days does not overflow into Infinity.
  const full = Math.min(backoff.maxMs, backoff.firstMs * 2 ** Math.min(Math.max(retry, 0), 30));
  const jitter = backoff.jitter ?? 0;
  return full * (1 - jitter + jitter * random());
}
