import { isFinished } from '../domain/execution.ts';
import type { Execution, ExecutionState } from '../domain/execution.ts';
import type { StoredExecutionEvent } from '../store/store.ts';
import type { Caller, ExecutionService } from './execution-service.ts';

/** True for the states an execution stays in until someone acts: paused for a review, or finished. */
export function isSettled(state: ExecutionState): boolean {
  return state === 'PAUSED' || isFinished(state);
}

export interface WaitOptions {
  /** Stops the wait; the execution is then returned as it stands. */
  readonly signal: AbortSignal;
  /** Follows the events after this sequence (0: the whole log); by default those after the first read's latest. */
  readonly afterSequence?: number;
  /** Called with the execution as it stands when the wait begins, unless it is settled already. */
  readonly onStart?: (execution: Execution) => void;
  /** Called with each new event of the execution while waiting. */
  readonly onEvent?: (event: StoredExecutionEvent) => void;
}

/**
 * The execution once it is paused or finished, or as it stands when `signal` aborts first. It follows the event log
 * from the first read's latest event on (or from `afterSequence`): a state and its event are saved together, so no
 * pause or end is missed between the first read and the stream; an old pause replayed is checked against the
 * execution as it is now. Throws `NOT_FOUND` for an execution the caller cannot see.
 */
export async function waitUntilSettled(
  service: ExecutionService,
  executionId: string,
  caller: Caller,
  options: WaitOptions,
): Promise<Execution> {
  const first = await service.get(executionId, caller);
  if (isSettled(first.state) || options.signal.aborted) return first;
  options.onStart?.(first);
  const after = options.afterSequence ?? first.lastEventSequence;
  const events = await service.openEventStream(executionId, caller, after, options.signal);
  for await (const event of events) {
    options.onEvent?.(event);
    if (event.type !== 'human-input-request' && event.type !== 'execution-end') continue;
    const execution = await service.get(executionId, caller);
    if (isSettled(execution.state)) return execution;
  }
  return service.get(executionId, caller);
}
