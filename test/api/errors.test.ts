import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CrewdError } from '../../src/domain/errors.ts';
import { aliceToken, orgToken, startApi } from './support/api-harness.ts';
import type { ApiHarness } from './support/api-harness.ts';

const inputs = { topic: 'AI', current_year: '2025' };

describe('error bodies', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());
  afterEach(() => {
    api.service.failWith = undefined;
  });

  it('answers 404 with the error body for an unknown route', async () => {
    const response = await api.request('/no/such/route');

    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: 'Not Found',
      message: 'Route not found',
      code: 'NOT_FOUND',
    });
  });

  it('answers 413 for a body over 1 MiB', async () => {
    const response = await api.request('/kickoff', {
      body: { inputs: { ...inputs, blob: 'x'.repeat(1024 * 1024) } },
    });

    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: 'Payload Too Large', code: 'PAYLOAD_TOO_LARGE' });
  });

  it('reads a JSON body sent with another content type', async () => {
    const response = await api.request('/kickoff', {
      body: JSON.stringify({ inputs }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });

    expect(response.status).toBe(200);
  });

  it('keeps the internal message of an unexpected failure out of the 500 body', async () => {
    api.service.failWith = new Error('SQLITE_CORRUPT at /var/lib/crewd/crewd.db (10.0.0.5:5432)');

    const response = await api.request('/status/any');
    const text = await response.text();

    expect(response.status).toBe(500);
    expect(JSON.parse(text)).toEqual({
      error: 'Internal Server Error',
      message: 'Internal server error',
      code: 'INTERNAL',
    });
    expect(text).not.toMatch(/SQLITE|crewd\.db|10\.0\.0\.5|at .*\.ts/);
  });

  it('answers 503 when a dependency is down, without its details', async () => {
    api.service.failWith = new CrewdError('DEPENDENCY_UNAVAILABLE', 'connect ECONNREFUSED 127.0.0.1:5432');

    const response = await api.request('/executions');
    const body = await response.json();

    expect(response.status).toBe(503);
    expect(body).toMatchObject({ error: 'Service Unavailable', code: 'DEPENDENCY_UNAVAILABLE' });
    expect(JSON.stringify(body)).not.toContain('5432');
  });

  it('answers 503, not 401, when the token store fails', async () => {
    const failing = await startApi({ authenticate: () => Promise.reject(new Error('database is locked')) });
    try {
      const response = await failing.request('/inputs');

      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
    } finally {
      await failing.close();
    }
  });

  it('answers an id far longer than any with 404 in the error shape, and a malformed URL with 400', async () => {
    for (const length of [300, 5000]) {
      const response = await api.request(`/status/${'a'.repeat(length)}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: 'Not Found', code: 'NOT_FOUND' });
    }
    const badUrl = await raw(api.url, 'GET /status/% HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(badUrl.status).toBe(400);
    expect(badUrl.body).toEqual({
      error: 'Invalid Request',
      message: 'The request URL is not valid',
      code: 'VALIDATION_ERROR',
    });
  });

  it('answers a request that is not valid HTTP with 400 in the error shape', async () => {
    const unknownMethod = await raw(api.url, 'FOO /kickoff HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(unknownMethod.status).toBe(400);
    expect(unknownMethod.body).toEqual({
      error: 'Invalid Request',
      message: 'The request is not valid HTTP',
      code: 'VALIDATION_ERROR',
    });
    const badLength = await raw(api.url, 'POST /kickoff HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n');
    expect(badLength.status).toBe(400);
    expect(badLength.body).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('refuses JSON nested deeper than 100 levels with 400, however deep, and accepts 100', async () => {
    const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
    const kickoff = (meta: string) =>
      api.request('/kickoff', { body: `{"inputs": ${JSON.stringify(inputs)}, "meta": {"a": ${meta}}}` });

    for (const depth of [100, 5000]) {
      const response = await kickoff(nested(depth));
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: 'Invalid Request',
        message: 'Request body nests objects and arrays more than 100 deep',
        code: 'VALIDATION_ERROR',
      });
    }
    // meta and its key are two levels: 98 more make exactly 100.
    expect((await kickoff(nested(98))).status).toBe(200);
  });

  it('names the refused prototype keys instead of calling the body invalid JSON', async () => {
    const response = await api.request('/kickoff', {
      body: `{"inputs": ${JSON.stringify(inputs)}, "meta": {"__proto__": {"admin": true}}}`,
    });

    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'Invalid Request',
      message: 'Request body may not use the keys __proto__ or constructor.prototype',
      code: 'VALIDATION_ERROR',
    });
  });
});

describe('rate limit', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi({ rateLimitPerMinute: 3 });
  });
  afterAll(() => api.close());

  it('answers 429 with Retry-After once a token spent its requests, and counts each token apart', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < 4; index += 1) statuses.push((await api.request('/inputs')).status);
    const limited = await api.request('/inputs');
    const otherToken = await api.request('/inputs', { token: aliceToken });

    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ error: 'Too Many Requests', code: 'RATE_LIMITED' });
    expect(otherToken.status).toBe(200);
  });

  it('counts failed authentication attempts against the client address', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < 4; index += 1) {
      statuses.push((await api.request('/inputs', { token: `wrong-${index}` })).status);
    }

    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it('never limits health probes', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 6 }, async () => (await api.request('/health/live', { token: null })).status),
    );

    expect(statuses.every((status) => status === 200)).toBe(true);
    expect((await api.request('/health/ready', { token: orgToken })).status).toBe(200);
  });
});

/** Sends `text` as it is over a new connection and reads the answer until the server closes it. */
async function raw(url: string, text: string): Promise<{ status: number; body: unknown }> {
  const { hostname, port } = new URL(url);
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(text));
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), body: JSON.parse(body) };
}
