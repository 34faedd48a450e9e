import { expect } from 'vitest';
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
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of response.body!) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = Object.fromEntries(
          block
            .split('\n')
            .filter((line) => !line.startsWith(':') && line.includes(':'))
            .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
        );
        if (fields.id === undefined) continue;
        const event: SseEvent = {
          id: Number(fields.id),
          event: fields.event ?? '',
          data: JSON.parse(fields.data ?? '{}'),
        };
        events.push(event);
        onEvent(event);
        if (events.length >= stopAfter) {
          controller.abort();
          return events;
        }
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  }
  return events;
}
