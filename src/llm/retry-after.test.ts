import { describe, expect, it } from 'vitest';
import { retryAfterSeconds } from './retry-after.ts';

const now = Date.parse('2025-01-01T00:00:00Z');

describe('retryAfterSeconds', () => {
  it('reads seconds', () => {
    expect(retryAfterSeconds({ 'retry-after': '12' }, now)).toBe(12);
  });

  it('reads an HTTP date as the seconds until then', () => {
    expect(retryAfterSeconds({ 'Retry-After': 'Wed, 01 Jan 2025 00:00:30 GMT' }, now)).toBe(30);
  });

  it('treats a date in the past as no wait', () => {
    expect(retryAfterSeconds({ 'retry-after': 'Tue, 31 Dec 2024 23:00:00 GMT' }, now)).toBe(0);
  });

  it('prefers retry-after-ms', () => {
    expect(retryAfterSeconds({ 'retry-after-ms': '1500', 'retry-after': '9' }, now)).toBe(1.5);
  });

  it('ignores missing and unreadable values', () => {
    expect(retryAfterSeconds(undefined, now)).toBeUndefined();
    expect(retryAfterSeconds({}, now)).toBeUndefined();
    expect(retryAfterSeconds({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(retryAfterSeconds({ 'retry-after': '-3' }, now)).toBeUndefined();
  });
});
