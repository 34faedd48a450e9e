import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});
