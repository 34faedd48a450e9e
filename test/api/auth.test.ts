import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenService } from '../../src/service/token-service.ts';
import type { TokenService } from '../../src/service/token-service.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { startApi } from './support/api-harness.ts';
import type { ApiHarness } from './support/api-harness.ts';
import { makeExecution } from './support/example-crew.ts';
import { until } from '../support/until.ts';

const unauthorized = {
  error: 'Unauthorized',
  message: 'Invalid or missing bearer token',
  code: 'UNAUTHORIZED',
};

let directory: string;
let store: Store;
let serverTokens: TokenService;
/** A second service on the same database: the CLI revoking a token from another process. */
let cliTokens: TokenService;
let api: ApiHarness;
let orgSecret: string;
let aliceSecret: string;
let bobSecret: string;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'crewd-api-auth-'));
  store = await openSqliteStore(join(directory, 'crewd.db'));
  await store.migrate();
  serverTokens = createTokenService({ store, clock: () => new Date() });
  cliTokens = createTokenService({ store, clock: () => new Date() });
  orgSecret = (await cliTokens.create({ kind: 'org', name: 'ops' })).secret;
  aliceSecret = (await cliTokens.create({ kind: 'user', userId: 'alice' })).secret;
  bobSecret = (await cliTokens.create({ kind: 'user', userId: 'bob' })).secret;
  api = await startApi({ authenticate: (secret) => serverTokens.authenticate(secret) });
});

afterAll(async () => {
  await api.close();
  await store.close();
  rmSync(directory, { recursive: true, force: true });
});

const protectedRoutes: [string, string][] = [
  ['GET', '/inputs'],
  ['POST', '/kickoff'],
  ['GET', '/status/some-id'],
  ['GET', '/some-id/status'],
  ['POST', '/resume'],
  ['POST', '/cancel/some-id'],
  ['GET', '/executions'],
  ['GET', '/executions/some-id/events'],
  ['GET', '/executions/some-id/deliveries'],
  ['GET', '/executions/some-id'],
  ['GET', '/crew'],
  ['GET', '/metrics'],
];

describe('bearer authentication', () => {
  it.each(protectedRoutes)('%s %s answers 401 without a token', async (method, path) => {
    const response = await api.request(path, {
      method,
      token: null,
      ...(method === 'POST' ? { body: {} } : {}),
    });

    expect(response.status).toBe(401);
    expect(await response.json()).toEqual(unauthorized);
  });

  it.each([
    ['another scheme', 'Basic b3JnOnNlY3JldA=='],
    ['a bearer without a token', 'Bearer'],
    ['a token with a space in it', 'Bearer two words'],
    ['an unknown token', 'Bearer crewd_not-a-real-token'],
  ])('answers the same 401 for %s', async (_case, header) => {
    const response = await api.request('/inputs', { token: null, headers: { authorization: header } });

    expect(response.status).toBe(401);
    expect(await response.json()).toEqual(unauthorized);
  });

  it('accepts the scheme name in any case', async () => {
    const response = await api.request('/inputs', {
      token: null,
      headers: { authorization: `bearer ${orgSecret}` },
    });

    expect(response.status).toBe(200);
  });

  it.each([
    ['/', 200],
    ['/health/live', 200],
    ['/health/ready', 200],
    ['/openapi.json', 200],
    ['/docs', 200],
    ['/console/', 200],
  ])('serves %s without a token', async (path, status) => {
    const response = await api.request(path, { token: null });

    expect(response.status).toBe(status);
  });

  it('passes organization and user callers through to the service', async () => {
    await api.request('/kickoff', { body: { inputs: { topic: 'a', current_year: '1' } }, token: orgSecret });
    await api.request('/kickoff', {
      body: { inputs: { topic: 'b', current_year: '2' } },
      token: aliceSecret,
    });

    const [org, alice] = api.service.kickoffs.slice(-2).map((request) => request.caller);
    expect(org).toMatchObject({ kind: 'org', userId: null, tokenId: expect.stringMatching(/^tok_/) });
    expect(alice).toMatchObject({ kind: 'user', userId: 'alice', tokenId: expect.stringMatching(/^tok_/) });
    expect(alice!.tokenId).not.toBe(org!.tokenId);
  });

  it('lets a user token reach its own executions only, and the organization token every one', async () => {
    api.service.put(
      makeExecution({ id: 'alice-run', state: 'RUNNING', owner: { tokenId: 'x', userId: 'alice' } }),
    );

    expect((await api.request('/status/alice-run', { token: aliceSecret })).status).toBe(200);
    expect((await api.request('/status/alice-run', { token: bobSecret })).status).toBe(404);
    expect((await api.request('/status/alice-run', { token: orgSecret })).status).toBe(200);
  });

  it('keeps metrics for organization tokens', async () => {
    expect((await api.request('/metrics', { token: orgSecret })).status).toBe(200);
    expect((await api.request('/metrics', { token: aliceSecret })).status).toBe(404);
  });

  // How soon (within a second) is the token service's to keep, tested there with its clock.
  it('refuses a token revoked from another process once its cache entry expires', async () => {
    const { record, secret } = await cliTokens.create({ kind: 'org', name: 'short-lived' });
    expect((await api.request('/inputs', { token: secret })).status).toBe(200);

    await cliTokens.revoke(record.id);
    await until(async () => (await api.request('/inputs', { token: secret })).status === 401);

    expect(await (await api.request('/inputs', { token: secret })).json()).toEqual(unauthorized);
  });
});
