import { expect } from 'vitest';
import { readServerSentEvents } from '../../src/client/read-server-sent-events.ts';
import type { ServerSentItem } from '../../src/client/read-server-sent-events.ts';
import { testToken } from './crewd.ts';

export interface SseEvent {
  id: number;
  event: string;
  data: Record<string, unknown>;
}

/** Reads Server-Sent Events until `stopAfter` events arrived or the stream ended; `onEvent` hears each as it comes. */
export async function readEvents(
  url: string,
  headers: Record<string, string>,
  stopAfter = Infinity,
  onEvent: (event: SseEvent) => void = () => {},
): Promise<SseEvent[]> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${testToken}`, ...headers },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const events: SseEvent[] = [];
  try {
    for await (const item of readServerSentEvents(response.body!)) {
      const event = toSseEvent(item);
      if (event === undefined) continue;
      events.push(event);
      onEvent(event);
      if (events.length >= stopAfter) {
        controller.abort();
        return events;
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  }
  return events;
}

/** The events of a whole `text/event-stream` body already read as text (a finished execution's log). */
export async function eventsOfText(text: string): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const item of readServerSentEvents(new Response(text).body!)) {
    const event = toSseEvent(item);
    if (event !== undefined) events.push(event);
  }
  return events;
}

/** An event of the log; undefined for heartbeats and anything without a sequence id. */
function toSseEvent(item: ServerSentItem): SseEvent | undefined {
  if ('comment' in item || item.id === undefined) return undefined;
  return {
    id: Number(item.id),
    event: item.event ?? '',
    data: JSON.parse(item.data) as Record<string, unknown>,
  };
}
