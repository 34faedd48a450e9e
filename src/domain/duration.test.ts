import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.ts';

describe('parseDuration', () => {
  it('reads a whole number and a unit', () => {
    expect(parseDuration('30d')).toBe(30 * 86_400_000);
    expect(parseDuration('12h')).toBe(12 * 3_600_000);
    expect(parseDuration('45m')).toBe(45 * 60_000);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('2W')).toBe(2 * 604_800_000);
  });

  it('refuses anything else', () => {
    for (const text of ['30', 'd', '30 days', '1.5d', '0d', '-1d', ''])
      expect(parseDuration(text)).toBeUndefined();
  });
});
