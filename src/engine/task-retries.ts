import { isCrewdError } from '../domain/errors.ts';
import { ListenerError } from './run-context.ts';
import { TimeLimitError } from './task-time-limit.ts';

/** crewAI's default `max_retry_limit`: a failed task execution is tried twice more. */
export const defaultMaxRetryLimit = 2;

/**
 * Runs `attempt` again after a failure, up to `retryLimit` more times, as crewAI's agents do (an answer that never
 * matched its output_json schema, an unexpected error). Not tried again: model call failures (their own retries with
 * backoff are spent; crewAI does not retry them either), a time limit that ran out, guardrails whose own retries are
 * spent and an output file that cannot be written (`TASK_FAILED`: crewAI checks those outside the agent's retries),
 * a bad configuration, a cancelled run, and whatever the event listener threw.
 */
export async function withRetries<T>(
  retryLimit: number,
  signal: AbortSignal,
  attempt: () => Promise<T>,
): Promise<T> {
  for (let failures = 0; ; failures += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (failures >= retryLimit || signal.aborted || !worthRetrying(error)) throw error;
    }
  }
}

function worthRetrying(error: unknown): boolean {
  if (error instanceof ListenerError || error instanceof TimeLimitError) return false;
  if (!isCrewdError(error)) return true;
  return !['MODEL_ERROR', 'REPLAY_MISS', 'CONFIG_INVALID', 'CANCELLED', 'TASK_FAILED'].includes(error.code);
}
