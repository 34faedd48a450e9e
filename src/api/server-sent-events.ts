import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { CrewdError } from '../domain/errors.ts';
import { eventDataJson } from '../domain/event-data-json.ts';
import type { StoredExecutionEvent } from '../store/store.ts';

/** One event in the `text/event-stream` format: `id` is the sequence, so a client can resume after it. */
export function formatEvent(event: StoredExecutionEvent): string {
  // An event name must stay on one line; JSON already escapes newlines inside the data, encoded once for the store
  // row and every stream.
  const type = event.type.replace(/[\r\n]/g, ' ');
  return `id: ${event.sequence}\nevent: ${type}\ndata: ${eventDataJson(event.data)}\n\n`;
}

export function formatComment(text: string): string {
  return `: ${text}\n\n`;
}

/**
 * The sequence to continue after: the `Last-Event-ID` header that an EventSource sends when it reconnects wins
 * over the `last_event_id` query parameter given on the first connection; 0 means from the beginning.
 */
export function resumePoint(header: string | string[] | undefined, query: string | undefined): number {
  const value = (Array.isArray(header) ? header[0] : header)?.trim() || query;
  if (value === undefined || value === '') return 0;
  const sequence = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(sequence)) {
    throw new CrewdError('VALIDATION_ERROR', 'Last-Event-ID must be a non-negative integer');
  }
  return sequence;
}

export interface EventStreamOptions {
  readonly heartbeatMs: number;
  readonly signal: AbortSignal;
  /** Runs before each event is written; what it throws ends the stream (a revoked token). */
  readonly beforeEvent?: () => Promise<void>;
}

/**
 * Writes events to an open response until they end or the signal aborts, with a comment line every heartbeat so
 * proxies keep an idle stream open. Waits for the socket to drain, so a slow client cannot grow memory. Events
 * that arrive together (one change writes several) leave in one write to the socket.
 */
export async function pipeEvents(
  response: ServerResponse,
  events: AsyncIterable<StoredExecutionEvent>,
  options: EventStreamOptions,
): Promise<void> {
  const heartbeat = setInterval(() => response.write(formatComment('heartbeat')), options.heartbeatMs);
  try {
    let corked = false;
    for await (const event of events) {
      if (options.signal.aborted) break;
      await options.beforeEvent?.();
      if (options.signal.aborted) break;
      if (!corked) {
        corked = true;
        response.cork();
        process.nextTick(() => {
          corked = false;
          response.uncork();
        });
      }
      if (!response.write(formatEvent(event))) await once(response, 'drain', { signal: options.signal });
    }
  } finally {
    clearInterval(heartbeat);
  }
}
