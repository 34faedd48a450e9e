import type { ExecutionEvent } from './client-types.ts';
import { errorFromAnswer } from './crewd-client-error.ts';
import { readServerSentEvents } from './read-server-sent-events.ts';

/**
 * Reads crewd's event stream (`GET /executions/{id}/events`) from a response body: `id` (the sequence), `event`
 * (the type) and one JSON `data` per event; heartbeats are skipped. An `error` event, which the server sends when
 * the stream fails after it started, throws the error it carries as a `CrewdClientError`.
 */
export async function* readExecutionEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<ExecutionEvent, void, undefined> {
  for await (const item of readServerSentEvents(body)) {
    if ('comment' in item) continue;
    const data = JSON.parse(item.data) as Record<string, unknown>;
    if (item.event === 'error') throw errorFromAnswer(500, data);
    if (item.id === undefined || !/^\d+$/.test(item.id)) continue;
    // The server writes only entries of the log's union; the client takes them as such, unchecked.
    yield { id: Number(item.id), type: item.event, data } as ExecutionEvent;
  }
}
