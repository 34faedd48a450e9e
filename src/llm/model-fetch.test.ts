import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelCallError } from '../domain/errors.ts';
import { createModelFetch } from './model-fetch.ts';

let server: Server;
let url: string;
const received: { method?: string; headers: IncomingMessage['headers']; body: string }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ method: request.method, headers: request.headers, body });
      if (request.url === '/empty') {
        response.writeHead(204).end();
        return;
      }
      if (request.url === '/endless') {
        endless(response);
        return;
      }
      if (request.url === '/announced') {
        // Says how large it is up front, then sends a little: refused on the header alone.
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': 64 * 1024 * 1024 });
        response.write('{"a":"');
        return;
      }
      response.writeHead(429, [
        ['content-type', 'application/json'],
        ['retry-after', '7'],
        ['x-note', 'one'],
        ['x-note', 'two'],
      ]);
      response.end(JSON.stringify({ echoed: body }));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

/** Bytes an endless answer had sent when its client went away. */
let endlessSent = 0;

/** An answer with no end, written as fast as the client reads it, until the client closes the connection. */
function endless(response: ServerResponse): void {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  response.writeHead(200, { 'content-type': 'application/json' });
  endlessSent = 0;
  const write = (): void => {
    while (!response.destroyed && response.write(chunk)) endlessSent += chunk.length;
  };
  response.on('drain', write);
  write();
}

afterAll(() => new Promise<void>((done) => server.close(() => done())));

describe('model fetch', () => {
  it('sends the method, headers and body, and answers with status, every header and the body', async () => {
    const fetch = createModelFetch();
    const response = await fetch(`${url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: '{"q":1}',
    });

    expect(received.at(-1)).toMatchObject({
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: '{"q":1}',
    });
    expect(response.status).toBe(429);
    expect(response.ok).toBe(false);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.headers.get('x-note')).toBe('one, two');
    expect(await response.json()).toEqual({ echoed: '{"q":1}' });
  });

  it('answers a status that has no body with an empty one', async () => {
    const response = await createModelFetch()(`${url}/empty`, { method: 'POST', body: '' });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
  });

  it('rejects when the signal aborts', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(createModelFetch()(`${url}/v1/chat`, { signal: controller.signal })).rejects.toThrow();
  });

  it('stops reading a response past its limit and fails the call with a message naming the limit', async () => {
    const fetch = createModelFetch({ maxResponseBytes: 256 * 1024 });
    const call = fetch(`${url}/endless`, { method: 'POST', body: '{}' });

    const error = await call.then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as ModelCallError).retryable).toBe(false);
    expect((error as ModelCallError).message).toBe(
      "the model's response is larger than 256 KiB, the most crewd reads of one model response; it was not read " +
        'further (limit the answer with max_tokens)',
    );
    // The server stopped because the client closed the connection, not because it ran out of answer.
    expect(endlessSent).toBeLessThan(64 * 1024 * 1024);
  });

  it('refuses a response whose announced length passes the limit without reading it', async () => {
    const call = createModelFetch({ maxResponseBytes: 1024 * 1024 })(`${url}/announced`, {
      method: 'POST',
      body: '{}',
    });
    await expect(call).rejects.toThrow(/larger than 1 MiB/);
  });

  it('reads a response of exactly the limit', async () => {
    const body = JSON.stringify({ echoed: '{}' });
    const response = await createModelFetch({ maxResponseBytes: Buffer.byteLength(body) })(`${url}/v1/chat`, {
      method: 'POST',
      body: '{}',
    });
    expect(await response.json()).toEqual({ echoed: '{}' });
  });

  it('holds a request it hands to the global fetch to the same limit', async () => {
    const fetch = createModelFetch({ maxResponseBytes: 256 * 1024 });
    const call = fetch(new Request(`${url}/endless`, { method: 'POST', body: '{}' }));
    await expect(call).rejects.toThrow(/larger than 256 KiB/);
  });
});
