import { Cron } from 'croner';
import { CrewdError } from '../domain/errors.ts';

/** When a cron expression in a time zone falls due, and whether one is valid. */
export interface CronTimes {
  /** The latest due time `t` with `after < t <= upTo`, or null when none falls in between. */
  latestDue(after: Date, upTo: Date): Date | null;
  /** The first due time after `after`, or null when the expression never falls due again. */
  next(after: Date): Date | null;
}

/** Throws `VALIDATION_ERROR` with croner's reason for an expression or time zone it cannot read. */
export function cronTimes(expression: string, timezone: string): CronTimes {
  if (!isTimeZone(timezone)) {
    throw new CrewdError(
      'VALIDATION_ERROR',
      `timezone '${timezone}' is not an IANA time zone (for example UTC or Europe/Paris)`,
    );
  }
  let cron: Cron;
  try {
    cron = new Cron(expression, { timezone, paused: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : 'unreadable';
    throw new CrewdError('VALIDATION_ERROR', `cron '${expression}' is not a cron expression: ${reason}`);
  }
  return {
    latestDue(after, upTo) {
      // previousRuns looks strictly before its date: one millisecond on takes a tick due exactly at upTo.
      const [latest] = cron.previousRuns(1, new Date(upTo.getTime() + 1));
      return latest !== undefined && latest.getTime() > after.getTime() ? latest : null;
    },
    next: (after) => cron.nextRun(after),
  };
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
