/** One Server-Sent Event from `GET /executions/{id}/events`. */
export interface StreamEvent {
  readonly id: number;
  readonly type: string;
  readonly data: unknown;
}

/** Parses complete `text/event-stream` blocks out of `buffer`; returns the events and the unfinished rest. */
export function parseEventBlocks(buffer: string): { events: StreamEvent[]; rest: string } {
  const events: StreamEvent[] = [];
  const blocks = buffer.replace(/\r\n?/g, '\n').split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    let id = Number.NaN;
    let type = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = Number(value);
      else if (field === 'event') type = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length > 0) events.push({ id, type, data: JSON.parse(data.join('\n')) as unknown });
  }
  return { events, rest };
}

/**
 * Follows an execution's events with `fetch`, so the token stays in the Authorization header (an EventSource
 * could only carry it in the URL). Reconnects after a dropped connection from the last event seen; returns when
 * the server ends the stream (the execution finished) or `signal` aborts.
 */
export async function followEvents(
  id: string,
  headers: Record<string, string>,
  after: number,
  onEvent: (event: StreamEvent) => void,
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
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        failures = 0;
        const parsed = parseEventBlocks(buffer + value);
        buffer = parsed.rest;
        for (const event of parsed.events) {
          if (event.type === 'error') return;
          if (Number.isFinite(event.id)) last = event.id;
          onEvent(event);
        }
      }
    } catch {
      if (signal.aborted) return;
      failures += 1;
      await new Promise((resolve) => setTimeout(resolve, 1000 * failures));
    }
  }
}
