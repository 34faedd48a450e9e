import { describe, expect, it } from 'vitest';
import { parseRetryAfterMs } from './retry-after.ts';

// An injected clock: every date below is read against this instant.
const now = Date.parse('2025-01-01T00:00:00Z');

describe('parseRetryAfterMs', () => {
  it('reads delay seconds, decimals too', () => {
    expect(parseRetryAfterMs('12', now)).toBe(12_000);
    expect(parseRetryAfterMs(' 0 ', now)).toBe(0);
    expect(parseRetryAfterMs('1.5', now)).toBe(1_500);
  });

  it('reads an HTTP date as the time from the clock until then', () => {
    expect(parseRetryAfterMs('Wed, 01 Jan 2025 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfterMs('Wed, 01 Jan 2025 00:00:30 GMT', now + 10_000)).toBe(20_000);
  });

  it('takes a date already past as no wait', () => {
    expect(parseRetryAfterMs('Tue, 31 Dec 2024 23:00:00 GMT', now)).toBe(0);
  });

  it('ignores what is absent or unreadable: negative numbers, words, dates in other forms', () => {
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
    expect(parseRetryAfterMs('', now)).toBeUndefined();
    expect(parseRetryAfterMs('-3', now)).toBeUndefined();
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
    expect(parseRetryAfterMs('2025-01-01T00:00:30Z', now)).toBeUndefined();
  });
});
