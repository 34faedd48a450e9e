import { expect, it } from 'vitest';
import { defaultBackoff, retryDelayMs } from './retry-delay.ts';

it('doubles the wait after each failure and stays at the bound, so a dead server is never retried in a loop', () => {
  const delays = [0, 1, 2, 3, 4, 5, 6, 7, 8, 1_000].map((failures) => retryDelayMs(failures, defaultBackoff));
  expect(delays).toEqual([250, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
});
