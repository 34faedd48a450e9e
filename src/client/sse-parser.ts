import type { ExecutionEvent } from './client-types.ts';
import { errorFromAnswer } from './crewd-client-error.ts';

/**
 * Reads crewd's Server-Sent Events from a response body: `id` (the sequence), `event` (the type) and one `data`
 * line of JSON per event; comment lines (heartbeats) are skipped. An `error` event, which the server sends when
 * the stream fails after it started, throws the error it carries.
 */
export async function* parseServerSentEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<ExecutionEvent, void, undefined> {
  const decoder = new TextDecoder();
  let buffer = '';
  let fields: { id?: string; event?: string; data: string[] } = { data: [] };
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let newline = buffer.search(/\r?\n/);
      while (newline !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(buffer[newline] === '\r' ? newline + 2 : newline + 1);
        newline = buffer.search(/\r?\n/);
        if (line === '') {
          const event = toEvent(fields);
          fields = { data: [] };
          if (event !== undefined) yield event;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const name = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (name === 'id') fields.id = value;
        else if (name === 'event') fields.event = value;
        else if (name === 'data') fields.data.push(value);
      }
    }
  } finally {
    // Ends the connection when the caller stops early.
    await reader.cancel().catch(() => undefined);
  }
}

function toEvent(fields: { id?: string; event?: string; data: string[] }): ExecutionEvent | undefined {
  if (fields.data.length === 0) return undefined;
  const data = JSON.parse(fields.data.join('\n')) as Record<string, unknown>;
  if (fields.event === 'error') throw errorFromAnswer(500, data);
  if (fields.id === undefined || !/^\d+$/.test(fields.id)) return undefined;
  return { id: Number(fields.id), type: fields.event ?? 'message', data };
}
