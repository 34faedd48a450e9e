import { describe, expect, it } from 'vitest';
import { isCrewdError } from '../domain/errors.ts';
import { cronTimes } from './schedule-times.ts';

const at = (iso: string): Date => new Date(iso);

describe('cron times', () => {
  it('finds the latest tick in a window, the end included and the start excluded', () => {
    const times = cronTimes('*/5 * * * *', 'UTC');
    expect(times.latestDue(at('2026-11-27T10:00:00Z'), at('2026-11-27T10:07:00Z'))).toEqual(
      at('2026-11-27T10:05:00Z'),
    );
    expect(times.latestDue(at('2026-11-27T10:00:00Z'), at('2026-11-27T10:05:00Z'))).toEqual(
      at('2026-11-27T10:05:00Z'),
    );
    expect(times.latestDue(at('2026-11-27T10:05:00Z'), at('2026-11-27T10:09:59Z'))).toBeNull();
  });

  it('reads the expression in its time zone', () => {
    const times = cronTimes('0 9 * * *', 'Europe/Paris');
    // 09:00 in Paris is 08:00 UTC in winter.
    expect(times.next(at('2026-11-27T10:00:00Z'))).toEqual(at('2026-11-28T08:00:00Z'));
  });

  it('takes only the latest of many missed ticks', () => {
    const times = cronTimes('* * * * *', 'UTC');
    expect(times.latestDue(at('2026-11-20T00:00:00Z'), at('2026-11-27T10:07:30Z'))).toEqual(
      at('2026-11-27T10:07:00Z'),
    );
  });

  it.each([
    ['99 * * * *', 'UTC', /cron '99 \* \* \* \*' is not a cron expression: Invalid value for minute/],
    ['0 9 * * *', 'Nowhere/Else', /timezone 'Nowhere\/Else' is not an IANA time zone/],
    ['', 'UTC', /is not a cron expression/],
  ])('refuses %j in %s with a reason', (expression, timezone, message) => {
    let thrown: unknown;
    try {
      cronTimes(expression, timezone);
    } catch (error) {
      thrown = error;
    }
    expect(isCrewdError(thrown) && thrown.code).toBe('VALIDATION_ERROR');
    expect((thrown as Error).message).toMatch(message);
  });
});
