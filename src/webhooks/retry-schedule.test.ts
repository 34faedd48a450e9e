import { describe, expect, it } from 'vitest';
import { CrewdError } from '../domain/errors.ts';
import { parseRetrySchedule, retryDelayMs } from './retry-schedule.ts';

describe('parseRetrySchedule', () => {
  it('defaults to about a day of retries when unset or blank', () => {
    expect(parseRetrySchedule(undefined)).toEqual([5, 60, 300, 1800, 7200, 18000, 36000]);
    expect(parseRetrySchedule('  ')).toEqual([5, 60, 300, 1800, 7200, 18000, 36000]);
  });

  it('reads comma-separated seconds, decimals and spaces included', () => {
    expect(parseRetrySchedule('1, 2.5,10')).toEqual([1, 2.5, 10]);
    expect(parseRetrySchedule('0.05,0.05')).toEqual([0.05, 0.05]);
    expect(parseRetrySchedule('0')).toEqual([0]);
  });

  it.each(['5,,60', '-5', 'abc', '5s', '1e3', 'Infinity', '99999999', Array(101).fill('1').join(',')])(
    'refuses %j naming the variable',
    (text) => {
      expect(() => parseRetrySchedule(text)).toThrow(CrewdError);
      try {
        parseRetrySchedule(text);
      } catch (error) {
        expect((error as CrewdError).code).toBe('CONFIG_INVALID');
        expect((error as CrewdError).message).toContain('CREWD_WEBHOOK_RETRY_SCHEDULE');
      }
    },
  );
});

describe('retryDelayMs', () => {
  const schedule = [5, 60];

  it('follows the schedule and stops when it is spent: its length is the number of retries', () => {
    expect(retryDelayMs(schedule, 1, () => 0.5)).toBe(5000);
    expect(retryDelayMs(schedule, 2, () => 0.5)).toBe(60_000);
    expect(retryDelayMs(schedule, 3, () => 0.5)).toBeNull();
    expect(retryDelayMs([], 1, () => 0.5)).toBeNull();
  });

  it('spreads each delay by at most 20 % either way', () => {
    expect(retryDelayMs(schedule, 2, () => 0)).toBe(48_000);
    expect(retryDelayMs(schedule, 2, () => 0.999999)).toBeCloseTo(72_000, -1);
  });

  it('waits as long as Retry-After asks when that is longer, up to a day', () => {
    expect(retryDelayMs(schedule, 1, () => 0.5, 30_000)).toBe(30_000);
    expect(retryDelayMs(schedule, 1, () => 0.5, 1000)).toBe(5000);
    expect(retryDelayMs(schedule, 1, () => 0.5, 10 * 24 * 3600 * 1000)).toBe(24 * 3600 * 1000);
    expect(retryDelayMs(schedule, 3, () => 0.5, 1000)).toBeNull();
  });
});
