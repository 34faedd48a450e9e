import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { createTokenService, type TokenService } from '../../src/service/token-service.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { apiClient, crewsDir, startCrewd, tempDatabase } from '../support/crewd.ts';
import { movableClock } from '../support/movable-clock.ts';

let model: FakeOpenAIServer;
let crewd: RunningServer;
let store: Store;
let tokens: TokenService;
const serverClock = movableClock();

beforeAll(async () => {
  const database = tempDatabase();
  model = await startFakeOpenAI();
  crewd = await startCrewd({
    crewDir: join(crewsDir, 'review-crew'),
    database,
    modelUrl: model.url,
    clock: serverClock.now,
  });
  // Tokens are administered from the command line against the same database the server uses.
  store = await openSqliteStore(database);
  tokens = createTokenService({ store, clock: () => new Date() });
});

afterAll(async () => {
  await crewd.close();
  await store.close();
  await model.close();
});

const inputs = { product: 'chairs', audience: 'cafes' };

describe('organization and user tokens', () => {
  it('lets users reach only their own executions, and organization tokens reach all', async () => {
    const alice = apiClient(crewd.url, (await tokens.create({ kind: 'user', userId: 'alice' })).secret);
    const bob = apiClient(crewd.url, (await tokens.create({ kind: 'user', userId: 'bob' })).secret);
    const org = apiClient(crewd.url, (await tokens.create({ kind: 'org' })).secret);

    expect((await alice.get('/inputs')).status).toBe(200);
    const kickoff = await alice.post('/kickoff', { inputs });
    expect(kickoff.status).toBe(200);
    const id = kickoff.body.kickoff_id as string;
    await alice.waitForState(id, ['PAUSED']);

    const unknown = await bob.get('/status/00000000-0000-4000-8000-000000000000');
    for (const response of [
      await bob.get(`/status/${id}`),
      await bob.get(`/${id}/status`),
      await bob.post('/resume', {
        execution_id: id,
        task_id: 'draft',
        human_feedback: 'x',
        is_approve: true,
      }),
      await bob.post(`/cancel/${id}`),
      await bob.get(`/executions/${id}/events`),
      await bob.get(`/executions/${id}/deliveries`),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body.code).toBe(unknown.body.code);
    }
    expect((await bob.get('/executions')).body.items).toEqual([]);
    expect(
      (await alice.get('/executions')).body.items.map((item: { kickoff_id: string }) => item.kickoff_id),
    ).toEqual([id]);

    expect((await org.get(`/status/${id}`)).status).toBe(200);
    const resumed = await alice.post('/resume', {
      execution_id: id,
      task_id: 'draft',
      human_feedback: 'ok',
      is_approve: true,
    });
    expect(resumed.status).toBe(200);
  });

  it('stops accepting a revoked token within a second', async () => {
    const created = await tokens.create({ kind: 'org', name: 'short-lived' });
    const client = apiClient(crewd.url, created.secret);
    expect((await client.get('/inputs')).status).toBe(200);
    await tokens.revoke(created.record.id);
    // Revoked in another process: the server may answer from its cache for less than a second of its clock.
    serverClock.advance(1000);
    const refused = await client.get('/inputs');
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: 'Unauthorized', message: 'Invalid or missing bearer token' });
  });
});
