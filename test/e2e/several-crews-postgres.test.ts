import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServedCrewConfig } from '../../src/config.ts';
import type { RunningServer } from '../../src/main.ts';
import { openStore } from '../../src/open-store.ts';
import { createTokenService } from '../../src/service/token-service.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { numberedAnswers, requestsMentioning } from '../support/model-requests.ts';
import { createTestDatabase } from '../support/postgres-database.ts';
import { apiClient, crewsDir, startCrewd } from '../support/crewd.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;
let database: { url: string; drop: () => Promise<void> };
let first: RunningServer;
let second: RunningServer;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: numberedAnswers() });
  database = await createTestDatabase();
  const crews: ServedCrewConfig[] = [
    { name: 'notes', dir: userCrew(join(crewsDir, 'plain-crew')) },
    { name: 'briefs', dir: userCrew(join(crewsDir, 'review-crew')) },
  ];
  const options = { crewDir: crews[0]!.dir, crews, modelUrl: model.url, database: database.url };
  first = await startCrewd(options);
  second = await startCrewd(options);
});

afterAll(async () => {
  await second?.close();
  await first?.close();
  await database?.drop();
  await model.close();
});

describe('several crews on PostgreSQL, in two processes', () => {
  it('keeps each execution to its crew, and each limited token to its crews, in every process', async () => {
    const store = await openStore(database.url);
    const { secret } = await createTokenService({ store, clock: () => new Date() })
      .create({ kind: 'user', userId: 'carol', crews: ['briefs'] })
      .finally(() => store.close());

    const briefs = apiClient(`${first.url}/crews/briefs`, secret);
    const kickoff = await briefs.post('/kickoff', { inputs: { product: 'lamps', audience: 'buyers' } });
    expect(kickoff.status).toBe(200);
    const id = kickoff.body.kickoff_id as string;
    const elsewhere = apiClient(`${second.url}/crews/briefs`, secret);
    expect((await elsewhere.waitForState(id, ['PAUSED'])).body.pending_human_input.task_id).toBe('draft');

    const notesThere = apiClient(`${second.url}/crews/notes`, secret);
    const refused = await notesThere.get(`/status/${id}`);
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('UNAUTHORIZED');
    expect((await apiClient(`${second.url}/crews/notes`).get(`/status/${id}`)).status).toBe(404);

    const resumed = await elsewhere.post('/resume', {
      execution_id: id,
      task_id: 'draft',
      human_feedback: 'Good.',
      is_approve: true,
    });
    expect(resumed.body.status).toBe('resumed');
    expect((await briefs.waitForState(id, ['SUCCESS', 'FAILED'])).body.state).toBe('SUCCESS');
  });
});

describe('versions across processes on PostgreSQL', () => {
  it("runs an execution on its version in a process that never had that version's files", async () => {
    const versionsDatabase = await createTestDatabase();
    const original = userCrew(join(crewsDir, 'review-crew'));
    const changed = userCrew(join(crewsDir, 'review-crew'));
    const tasksFile = join(changed, 'tasks.yaml');
    writeFileSync(
      tasksFile,
      readFileSync(tasksFile, 'utf8').replace('Write the final brief about', 'Write the changed brief about'),
    );
    const serve = (dir: string) =>
      startCrewd({
        crewDir: dir,
        crews: [{ name: 'briefs', dir }],
        modelUrl: model.url,
        database: versionsDatabase.url,
      });
    const older = await serve(original);
    let newer: RunningServer | undefined;
    try {
      const api = apiClient(`${older.url}/crews/briefs`);
      const kickoff = await api.post('/kickoff', { inputs: { product: 'sofas', audience: 'buyers' } });
      const id = kickoff.body.kickoff_id as string;
      await api.waitForState(id, ['PAUSED']);
      // The older process stops; the newer one, started from changed files, deploys version 2.
      await older.close();
      newer = await serve(changed);
      const there = apiClient(`${newer.url}/crews/briefs`);
      expect((await there.get('/versions')).body.served).toBe(2);

      const resumed = await there.post('/resume', {
        execution_id: id,
        task_id: 'draft',
        human_feedback: 'Fine.',
        is_approve: true,
      });
      expect(resumed.body.status).toBe('resumed');
      expect((await there.waitForState(id, ['SUCCESS', 'FAILED'])).body.state).toBe('SUCCESS');
      expect(requestsMentioning(model, 'Write the final brief about sofas')).toHaveLength(1);
      expect(requestsMentioning(model, 'changed brief about sofas')).toHaveLength(0);
    } finally {
      await newer?.close();
      await older.close();
      await versionsDatabase.drop();
    }
  });
});
