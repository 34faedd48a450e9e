import { CrewdError } from '../domain/errors.ts';

/** Seconds to wait before each retry; its length is the number of retries after the first attempt. */
export type RetrySchedule = readonly number[];

/** About a day in all: 5 s, 1 min, 5 min, 30 min, 2 h, 5 h, 10 h. */
export const defaultRetrySchedule: RetrySchedule = [5, 60, 300, 1800, 7200, 18000, 36000];

const variable = 'CREWD_WEBHOOK_RETRY_SCHEDULE';
const maxDelaySeconds = 7 * 24 * 3600;
const maxRetries = 100;
const jitterShare = 0.2;
// A receiver may ask for a pause, but not hold a message for longer than this.
const maxRetryAfterMs = 24 * 3600 * 1000;

/**
 * Reads `CREWD_WEBHOOK_RETRY_SCHEDULE`: seconds, comma-separated (`5,60,300`; decimals allowed). Unset or blank
 * means the default. Anything else that is not a list of non-negative numbers throws `CONFIG_INVALID`.
 */
export function parseRetrySchedule(text: string | undefined): RetrySchedule {
  if (text === undefined || text.trim() === '') return defaultRetrySchedule;
  const items = text.split(',').map((item) => item.trim());
  if (items.length > maxRetries) {
    throw new CrewdError('CONFIG_INVALID', `${variable} allows at most ${maxRetries} retries`);
  }
  return items.map((item) => {
    const seconds = /^\d+(\.\d+)?$/.test(item) ? Number(item) : Number.NaN;
    if (!Number.isFinite(seconds) || seconds > maxDelaySeconds) {
      throw new CrewdError(
        'CONFIG_INVALID',
        `${variable} must be comma-separated seconds between 0 and ${maxDelaySeconds} (got "${item}")`,
      );
    }
    return seconds;
  });
}

/**
 * Milliseconds to wait after a failed attempt, or null when the retries are spent. `attemptsMade` counts the
 * attempt that just failed; `random` returns [0, 1) and spreads the delay by ±20 % so that receivers coming back
 * from an outage are not hit by every message at once. A `Retry-After` longer than the schedule's delay wins.
 */
export function retryDelayMs(
  schedule: RetrySchedule,
  attemptsMade: number,
  random: () => number,
  retryAfterMs?: number,
): number | null {
  const seconds = schedule[attemptsMade - 1];
  if (seconds === undefined) return null;
  const jittered = seconds * 1000 * (1 + (random() * 2 - 1) * jitterShare);
  const asked = retryAfterMs === undefined ? 0 : Math.min(retryAfterMs, maxRetryAfterMs);
  return Math.max(0, Math.round(Math.max(jittered, asked)));
}
