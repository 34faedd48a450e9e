import { CrewdError } from '../domain/errors.ts';
import { abortable } from './abortable.ts';
import type { Timers } from './timers.ts';

/** Why an attempt was stopped by its agent's `max_execution_time`; never tried again (crewAI's rule). */
export class TimeLimitError extends CrewdError {
  constructor(seconds: number) {
    super(
      'TASK_FAILED',
      `it ran longer than its agent's max_execution_time of ${seconds} seconds; raise max_execution_time or make the task smaller`,
    );
    this.name = 'TimeLimitError';
  }
}

/**
 * Runs `work` with a signal that aborts when `seconds` have passed (or when `signal` aborts), and rejects with a
 * `TimeLimitError` at that moment even if the work ignores its signal. No limit when `seconds` is undefined.
 */
export async function withTimeLimit<T>(
  seconds: number | undefined,
  timers: Timers,
  signal: AbortSignal,
  work: (limited: AbortSignal) => Promise<T>,
): Promise<T> {
  if (seconds === undefined) return work(signal);
  const controller = new AbortController();
  const forward = (): void => controller.abort(signal.reason);
  signal.addEventListener('abort', forward, { once: true });
  const stop = timers.start(seconds * 1000, () => controller.abort(new TimeLimitError(seconds)));
  try {
    return await abortable(work(controller.signal), controller.signal);
  } finally {
    stop();
    signal.removeEventListener('abort', forward);
  }
}
