import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { openStore } from '../../src/open-store.ts';
import { createTokenService } from '../../src/service/token-service.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { createTestDatabase } from '../support/postgres-database.ts';
import { apiClient, startCrewd, testToken } from '../support/crewd.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;
let database: { url: string; drop: () => Promise<void> };
let crewd: RunningServer;
let aliceToken: string;

beforeAll(async () => {
  model = await startFakeOpenAI();
  database = await createTestDatabase();
  const store = await openStore(database.url);
  try {
    await store.migrate();
    const tokens = createTokenService({ store, clock: () => new Date() });
    aliceToken = (await tokens.create({ kind: 'user', userId: 'alice' })).secret;
  } finally {
    await store.close();
  }
  crewd = await startCrewd({
    crewDir: userCrew(join(import.meta.dirname, 'flows', 'counter-flow')),
    modelUrl: model.url,
    database: database.url,
    env: { PATH: process.env.PATH ?? '', CREWD_PYTHON: 'python3', CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION: '1' },
  });
});

afterAll(async () => {
  await crewd?.close();
  await database?.drop();
  await model.close();
});

async function run(body: Record<string, unknown>, token = testToken): Promise<Record<string, unknown>> {
  const api = apiClient(crewd.url, token);
  const kickoff = await api.post('/kickoff', { inputs: {}, ...body });
  expect(kickoff.status).toBe(200);
  const done = await api.waitForState(kickoff.body.kickoff_id as string, ['SUCCESS', 'FAILED']);
  expect(done.body.state).toBe('SUCCESS');
  return done.body.flow_state as Record<string, unknown>;
}

describe('restoring a flow state on PostgreSQL', () => {
  it("restores by id and forks, finding only the states the caller's token can see", async () => {
    expect(await run({ inputs: { id: 'tally' } })).toMatchObject({ id: 'tally', count: 1 });
    expect(await run({ inputs: { id: 'tally' } })).toMatchObject({ id: 'tally', count: 2 });
    const fork = await run({ restoreFromStateId: 'tally', inputs: { label: 'fork' } });
    expect(fork).toMatchObject({ count: 3, label: 'fork' });
    expect(fork.id).not.toBe('tally');
    // The organization's executions are not Alice's to see: a miss for her.
    expect(await run({ inputs: { id: 'tally' } }, aliceToken)).toMatchObject({ id: 'tally', count: 1 });
    // The organization token sees Alice's run too, the newest under the id.
    expect(await run({ inputs: { id: 'tally' } })).toMatchObject({ id: 'tally', count: 2 });
  });
});
