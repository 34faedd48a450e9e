import { describe, expect, it } from 'vitest';
import { backoffDelayMs } from './backoff.ts';

describe('backoffDelayMs', () => {
  it('doubles from the first wait and stays at the bound, however many retries', () => {
    const backoff = { firstMs: 250, maxMs: 30_000 };
    const delays = [0, 1, 2, 3, 4, 5, 6, 7, 8, 1_000].map((retry) => backoffDelayMs(retry, backoff));
    expect(delays).toEqual([250, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('draws a jittered wait between (1 - jitter) of the full wait and the full wait', () => {
    const backoff = { firstMs: 100, maxMs: 1_000, jitter: 0.25 };
    expect(backoffDelayMs(2, backoff, () => 0)).toBe(300);
    expect(backoffDelayMs(2, backoff, () => 0.5)).toBe(350);
    expect(backoffDelayMs(2, backoff, () => 0.999)).toBeLessThan(400);
    expect(backoffDelayMs(20, backoff, () => 0)).toBe(750);
  });

  it('with full jitter waits anything from nothing to the full wait', () => {
    const backoff = { firstMs: 500, maxMs: 30_000, jitter: 1 };
    expect(backoffDelayMs(1, backoff, () => 0)).toBe(0);
    expect(backoffDelayMs(1, backoff, () => 0.5)).toBe(500);
  });
});
