import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectionLimits } from '../../src/api/connection-limits.ts';
import { orgToken, startApi } from './support/api-harness.ts';
import type { ApiHarness } from './support/api-harness.ts';

/** A raw client socket: what it has received so far, and a promise of the server closing it. */
interface RawClient {
  readonly socket: Socket;
  received(): string;
  /** Resolves with everything received once the server has ended the connection. */
  readonly closed: Promise<string>;
}

let api: ApiHarness | undefined;

afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function start(limits: Partial<ConnectionLimits>): Promise<{ port: number }> {
  api = await startApi({ connectionLimits: { checkIntervalMs: 20, ...limits } });
  return { port: Number(new URL(api.url).port) };
}

async function open(port: number): Promise<RawClient> {
  const socket = connect({ port, host: '127.0.0.1' });
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  // A reset counts as closed too: the server may destroy a socket it refuses.
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(text)));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => undefined);
  return { socket, received: () => text, closed };
}

function statusLine(response: string): string {
  return response.split('\r\n')[0] ?? '';
}

function headerOf(response: string, name: string): string | undefined {
  const head = response.split('\r\n\r\n')[0] ?? '';
  const line = head.split('\r\n').find((candidate) => candidate.toLowerCase().startsWith(`${name}:`));
  return line?.slice(name.length + 1).trim();
}

async function responseOn(client: RawClient): Promise<string> {
  while (!client.received().includes('\r\n\r\n')) {
    await new Promise((resolve) => client.socket.once('data', resolve));
  }
  return client.received();
}

const bigBodyHeaders = (extra: string): string =>
  `POST /kickoff HTTP/1.1\r\nHost: crewd\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n${extra}\r\n`;

describe('connections a client cannot keep', () => {
  it('answers 401 to a request whose body never comes and closes its connection', async () => {
    // Deadlines far away: only the refusal may end this connection.
    const { port } = await start({ requestTimeoutMs: 600_000, headersTimeoutMs: 600_000 });
    const client = await open(port);
    client.socket.write(bigBodyHeaders(''));
    const response = await client.closed;
    expect(statusLine(response)).toBe('HTTP/1.1 401 Unauthorized');
    expect(headerOf(response, 'connection')).toBe('close');
    expect(response).toContain('"code":"UNAUTHORIZED"');
  });

  it('answers 413 to a body announced over the limit and closes the connection', async () => {
    const { port } = await start({ requestTimeoutMs: 600_000, headersTimeoutMs: 600_000 });
    const client = await open(port);
    client.socket.write(
      `POST /kickoff HTTP/1.1\r\nHost: crewd\r\nAuthorization: Bearer ${orgToken}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 2000000\r\n\r\n{"inputs":',
    );
    const response = await client.closed;
    expect(statusLine(response)).toBe('HTTP/1.1 413 Payload Too Large');
    expect(headerOf(response, 'connection')).toBe('close');
    expect(response).toContain('"code":"PAYLOAD_TOO_LARGE"');
  });

  it('closes a connection whose headers do not arrive in time', async () => {
    const { port } = await start({ headersTimeoutMs: 200, requestTimeoutMs: 600_000 });
    const client = await open(port);
    client.socket.write('GET /inputs HTTP/1.1\r\nHost: crewd\r\n');
    const response = await client.closed;
    expect(statusLine(response)).toBe('HTTP/1.1 400 Bad Request');
    expect(response).toContain('The request was not received in time');
  });

  it('closes an authorized request whose body does not arrive in time', async () => {
    const { port } = await start({ headersTimeoutMs: 200, requestTimeoutMs: 300 });
    const client = await open(port);
    client.socket.write(
      `POST /kickoff HTTP/1.1\r\nHost: crewd\r\nAuthorization: Bearer ${orgToken}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"inputs":',
    );
    const response = await client.closed;
    expect(response).not.toContain('kickoff_id');
    expect(statusLine(response)).toMatch(/^HTTP\/1\.1 (400|408) /);
  });

  it('closes an idle kept-alive connection', async () => {
    const { port } = await start({ keepAliveTimeoutMs: 100 });
    const client = await open(port);
    client.socket.write('GET / HTTP/1.1\r\nHost: crewd\r\nConnection: keep-alive\r\n\r\n');
    expect(statusLine(await responseOn(client))).toBe('HTTP/1.1 200 OK');
    const response = await client.closed;
    expect(response).toContain('Healthy');
  });

  it('closes connections from one address past its cap at once, and takes new ones when some close', async () => {
    const { port } = await start({ connectionsPerAddress: 2 });
    const first = await open(port);
    const second = await open(port);
    for (const client of [first, second]) {
      client.socket.write('GET / HTTP/1.1\r\nHost: crewd\r\n\r\n');
      expect(statusLine(await responseOn(client))).toBe('HTTP/1.1 200 OK');
    }
    const third = await open(port);
    third.socket.write('GET / HTTP/1.1\r\nHost: crewd\r\n\r\n');
    expect(await third.closed).toBe('');

    first.socket.destroy();
    await first.closed;
    // The server learns of the close a moment later: a connection refused meanwhile is simply tried again.
    let fourth = await open(port);
    fourth.socket.write('GET / HTTP/1.1\r\nHost: crewd\r\n\r\n');
    while ((await Promise.race([fourth.closed.then(() => 'closed'), responseOn(fourth)])) === 'closed') {
      fourth = await open(port);
      fourth.socket.write('GET / HTTP/1.1\r\nHost: crewd\r\n\r\n');
    }
    expect(statusLine(fourth.received())).toBe('HTTP/1.1 200 OK');
    second.socket.destroy();
    fourth.socket.destroy();
  });
});
