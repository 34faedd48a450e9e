import { createParser } from 'eventsource-parser';
import type { EventSourceMessage } from 'eventsource-parser';

/**
 * One part of a `text/event-stream`: an event with its fields as sent (`id`, `event`, and its `data` lines joined
 * by newlines), or a comment line (crewd sends `heartbeat` ones while nothing happens).
 */
export type ServerSentItem = EventSourceMessage | { readonly comment: string };

/**
 * Reads a Server-Sent Events body as an EventSource would, in the order the server sent it. An event the stream
 * ends in the middle of is dropped, as EventSource drops it. Stopping the iteration early closes the body.
 */
export async function* readServerSentEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<ServerSentItem, void, undefined> {
  const parsed: ServerSentItem[] = [];
  const parser = createParser({
    onEvent: (message) => parsed.push(message),
    onComment: (comment) => parsed.push({ comment }),
  });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
      // Taken out before yielding, so what the parser adds meanwhile is never lost.
      const ready = parsed.splice(0);
      yield* ready;
    }
  } finally {
    // Ends the connection when the caller stops early.
    await reader.cancel().catch(() => undefined);
  }
}
