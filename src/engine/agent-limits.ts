import type { AgentDefinition } from '../domain/crew.ts';
import type { RunContext } from './run-context.ts';
import { defaultMaxRetryLimit, withRetries } from './task-retries.ts';
import { withTimeLimit } from './task-time-limit.ts';
import { systemTimers } from './timers.ts';

/**
 * Runs a task's work under its agent's crewAI limits: each execution stopped after `max_execution_time` seconds,
 * and a failed one run again up to `max_retry_limit` times. `work` gets the run with the limited signal.
 */
export function withAgentLimits<T>(
  run: RunContext,
  agent: AgentDefinition,
  work: (limited: RunContext) => Promise<T>,
): Promise<T> {
  const { signal } = run.request;
  return withRetries(agent.maxRetryLimit ?? defaultMaxRetryLimit, signal, () =>
    withTimeLimit(agent.maxExecutionTime, run.request.timers ?? systemTimers, signal, (limited) =>
      work(limited === signal ? run : { ...run, request: { ...run.request, signal: limited } }),
    ),
  );
}
