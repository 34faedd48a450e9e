import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, startCrewd, tempDatabase } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: () => ({ content: 'A draft about vases.' }) });
});

afterAll(async () => {
  await model.close();
});

describe('flow versions', () => {
  it('resumes an execution on the flow version it started on, while new kickoffs take the changed flow', async () => {
    const dir = userCrew(join(import.meta.dirname, 'flows', 'review-flow'));
    const database = tempDatabase();
    const first = await startCrewd({ crewDir: dir, database, modelUrl: model.url });
    const before = apiClient(first.url);
    const id = (await before.post('/kickoff', { inputs: { topic: 'vases' } })).body.kickoff_id as string;
    await before.waitForState(id, ['PAUSED']);
    await first.close();

    const file = join(dir, 'flow.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace("'PUBLISHED: '", "'PUBLISHED (v2): '"));
    const second = await startCrewd({ crewDir: dir, database, modelUrl: model.url });
    try {
      const api = apiClient(second.url);
      const versions = await api.get('/versions');
      expect(versions.body.versions).toHaveLength(2);
      await api.post('/resume', {
        execution_id: id,
        task_id: 'review',
        human_feedback: 'approved',
        is_approve: true,
      });
      expect((await api.waitForState(id, ['SUCCESS'])).body.result).toBe('PUBLISHED: A draft about vases.');

      const fresh = (await api.post('/kickoff', { inputs: { topic: 'vases' } })).body.kickoff_id as string;
      await api.waitForState(fresh, ['PAUSED']);
      await api.post('/resume', {
        execution_id: fresh,
        task_id: 'review',
        human_feedback: 'approved',
        is_approve: true,
      });
      expect((await api.waitForState(fresh, ['SUCCESS'])).body.result).toBe(
        'PUBLISHED (v2): A draft about vases.',
      );
    } finally {
      await second.close();
    }
  });
});
