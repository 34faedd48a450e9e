import type { ExecutionEvent } from '../../src/client/client-types.ts';
import { CrewdClientError } from '../../src/client/crewd-client-error.ts';
import { readExecutionEvents } from '../../src/client/read-execution-events.ts';

/**
 * Follows an execution's events with `fetch`, so the token stays in the Authorization header (an EventSource
 * could only carry it in the URL). Reconnects after a dropped connection from the last event seen; returns when
 * the server ends the stream (the execution finished) or `signal` aborts.
 */
export async function followEvents(
  id: string,
  headers: Record<string, string>,
  after: number,
  onEvent: (event: ExecutionEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  let last = after;
  for (let failures = 0; !signal.aborted && failures < 5;) {
    try {
      const response = await fetch(`/executions/${encodeURIComponent(id)}/events`, {
        headers: { ...headers, accept: 'text/event-stream', 'last-event-id': String(last) },
        signal,
        cache: 'no-store',
      });
      if (!response.ok || response.body === null) return;
      failures = 0;
      for await (const event of readExecutionEvents(response.body)) {
        last = event.id;
        onEvent(event);
      }
      return;
    } catch (error) {
      // An error event: the server ended the stream because it failed, which reconnecting would not mend.
      if (signal.aborted || error instanceof CrewdClientError) return;
      failures += 1;
      await new Promise((resolve) => setTimeout(resolve, 1000 * failures));
    }
  }
}
