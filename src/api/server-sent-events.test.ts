import { once } from 'node:events';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { StoredExecutionEvent } from '../store/store.ts';
import { formatComment, formatEvent, pipeEvents, resumePoint } from './server-sent-events.ts';

describe('resumePoint', () => {
  it('starts from the beginning without a header or parameter', () => {
    expect(resumePoint(undefined, undefined)).toBe(0);
    expect(resumePoint('', undefined)).toBe(0);
  });

  it('prefers the Last-Event-ID header to the query parameter', () => {
    expect(resumePoint('7', '3')).toBe(7);
    expect(resumePoint(undefined, '3')).toBe(3);
  });

  it.each(['-1', '1.5', 'abc', '99999999999999999999'])('refuses %s', (value) => {
    expect(() => resumePoint(value, undefined)).toThrow('Last-Event-ID must be a non-negative integer');
  });
});

describe('formatEvent', () => {
  it('writes the sequence as id, the type as event and the data as one JSON line', () => {
    const text = formatEvent({
      executionId: 'e',
      sequence: 12,
      type: 'human-input-request',
      data: { task_id: 'review', output: 'two\nlines', attempt: 1 },
      createdAt: new Date(),
    });

    expect(text).toBe(
      'id: 12\nevent: human-input-request\ndata: {"task_id":"review","output":"two\\nlines","attempt":1}\n\n',
    );
  });
});

describe('pipeEvents', () => {
  const event = (sequence: number): StoredExecutionEvent => ({
    executionId: 'e',
    sequence,
    type: 'execution-start',
    data: { state: 'RUNNING' },
    createdAt: new Date(),
  });

  /** Serves `events` through pipeEvents on loopback; resolves with the chunks of the body as they came on the wire. */
  async function chunksOf(
    events: () => AsyncIterable<StoredExecutionEvent>,
    opening?: string,
  ): Promise<string[]> {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const signal = new AbortController().signal;
      pipeEvents(response, events(), {
        heartbeatMs: 60_000,
        signal,
        ...(opening === undefined ? {} : { opening }),
      })
        .catch(() => response.write('event: error\ndata: {}\n\n'))
        .finally(() => response.end());
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
      socket.write('GET / HTTP/1.1\r\nhost: test\r\nconnection: close\r\n\r\n');
      let raw = '';
      for await (const data of socket) raw += String(data);
      const chunks: string[] = [];
      let rest = raw.slice(raw.indexOf('\r\n\r\n') + 4);
      for (;;) {
        const size = Number.parseInt(rest.slice(0, rest.indexOf('\r\n')), 16);
        if (!(size >= 0)) throw new Error(`not a chunked body: ${raw}`);
        if (size === 0) return chunks;
        const start = rest.indexOf('\r\n') + 2;
        chunks.push(rest.slice(start, start + size));
        rest = rest.slice(start + size + 2);
      }
    } finally {
      server.close();
    }
  }

  it('writes the events that arrive together as one chunk, in order, and later ones after them', async () => {
    const chunks = await chunksOf(async function* () {
      yield* [event(1), event(2), event(3)];
      await new Promise((resolve) => setTimeout(resolve, 20));
      yield event(4);
    });

    expect(chunks).toEqual([
      formatEvent(event(1)) + formatEvent(event(2)) + formatEvent(event(3)),
      formatEvent(event(4)),
    ]);
  });

  it('writes the events gathered before a failure ahead of what the caller writes about it', async () => {
    const chunks = await chunksOf(async function* () {
      yield* [event(1), event(2)];
      await Promise.reject(new Error('the store went away'));
    });

    expect(chunks.join('')).toBe(
      formatEvent(event(1)) + formatEvent(event(2)) + 'event: error\ndata: {}\n\n',
    );
  });

  it('writes the opening with the first events, or alone when they are slower than its wait', async () => {
    const opening = formatComment('stream open');
    const withEvents = await chunksOf(async function* () {
      yield* [event(1), event(2)];
      await new Promise((resolve) => setTimeout(resolve, 20));
      yield event(3);
    }, opening);
    const without = await chunksOf(async function* () {
      await new Promise((resolve) => setTimeout(resolve, 20));
      yield event(1);
    }, opening);

    expect(withEvents).toEqual([
      opening + formatEvent(event(1)) + formatEvent(event(2)),
      formatEvent(event(3)),
    ]);
    expect(without).toEqual([opening, formatEvent(event(1))]);
  });
});
