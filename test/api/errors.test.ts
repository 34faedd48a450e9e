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
