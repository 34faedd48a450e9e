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
  /** Runs before each batch of events is written; what it throws ends the stream (a revoked token). */
  readonly beforeBatch?: () => Promise<void>;
  /**
   * Written with the first events, or after `openingWaitMs` when none come sooner: the headers, this and the first
   * events then leave in one write, as a stream opened right after its kickoff sees them.
   */
  readonly opening?: string;
  readonly openingWaitMs?: number;
}

/** Text a batch gathers before it is written at once, so a long log read from the store stays bounded. */
const batchChars = 64 * 1024;

/**
 * Writes events to an open response until they end or the signal aborts, with a comment line every heartbeat so
 * proxies keep an idle stream open. Waits for the socket to drain, so a slow client cannot grow memory. Events
 * that arrive together (one change writes several) leave as one chunk in one write to the socket: each write
 * of a chunked response costs its framing and its share of the socket's work.
 */
export async function pipeEvents(
  response: ServerResponse,
  events: AsyncIterable<StoredExecutionEvent>,
  options: EventStreamOptions,
): Promise<void> {
  const heartbeat = setInterval(() => response.write(formatComment('heartbeat')), options.heartbeatMs);
  let batch = options.opening ?? '';
  let gathering = false;
  const flush = (): void => {
    if (batch === '' || response.destroyed) return;
    response.write(batch);
    batch = '';
  };
  // Asked of the response each time, not remembered from a write: a batch written by a timer may have drained
  // before the next event, and a drain already past never comes again.
  const drained = async (): Promise<void> => {
    if (response.writableNeedDrain) await once(response, 'drain', { signal: options.signal });
  };
  // Written once the events that arrive with the first one are in the batch too: after this turn of the event
  // loop, whichever callback or promise the first came from.
  const gather = (): void => {
    gathering = true;
    response.cork();
    setImmediate(() => {
      gathering = false;
      flush();
      response.uncork();
    });
  };
  const opening =
    batch === ''
      ? undefined
      : setTimeout(() => {
          if (!gathering) flush();
        }, options.openingWaitMs ?? 0);
  try {
    for await (const event of events) {
      if (options.signal.aborted) break;
      if (!gathering) {
        await drained();
        await options.beforeBatch?.();
        if (options.signal.aborted) break;
        gather();
      }
      batch += formatEvent(event);
      if (batch.length < batchChars) continue;
      flush();
      await drained();
    }
  } finally {
    clearInterval(heartbeat);
    clearTimeout(opening);
    // Before whatever the caller writes next: an error event, or the end of the response.
    flush();
  }
}
