import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServedCrewConfig } from '../../src/config.ts';
import type { RunningServer } from '../../src/main.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { numberedAnswers } from '../support/model-requests.ts';
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
    { name: 'review', dir: userCrew(join(import.meta.dirname, 'flows', 'review-flow')) },
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

describe('a flow served beside a crew on PostgreSQL, in two processes', () => {
  it('lists the crew and the flow with their kinds', async () => {
    const crews = await apiClient(second.url).get('/crews');
    expect(crews.body.crews).toEqual([
      expect.objectContaining({ name: 'notes', kind: 'crew', base_url: '/crews/notes' }),
      expect.objectContaining({
        name: 'review',
        kind: 'flow',
        base_url: '/crews/review',
        inputs: ['topic', 'audience'],
      }),
    ]);
  });

  it('pauses in one process and is answered and finished through the other', async () => {
    const here = apiClient(`${first.url}/crews/review`);
    const there = apiClient(`${second.url}/crews/review`);
    const kickoff = await here.post('/kickoff', { inputs: { topic: 'boats', audience: 'sailors' } });
    expect(kickoff.status).toBe(200);
    const id = kickoff.body.kickoff_id as string;
    const paused = await there.waitForState(id, ['PAUSED']);
    expect(paused.body.pending_human_input).toMatchObject({
      task_id: 'review',
      emit: ['approved', 'needs_changes'],
    });
    expect(paused.body.flow_state).toMatchObject({ topic: 'boats', audience: 'sailors' });
    const resumed = await there.post('/resume', {
      execution_id: id,
      task_id: 'review',
      human_feedback: 'approved',
      is_approve: true,
    });
    expect(resumed.status).toBe(200);
    const done = await here.waitForState(id, ['SUCCESS', 'FAILED']);
    expect(done.body.state).toBe('SUCCESS');
    expect(done.body.result).toBe(`PUBLISHED: ${String(paused.body.pending_human_input.output)}`);
    expect(done.body.flow_methods).toEqual(['draft', 'review', 'publish']);
    // Under the crew's base URL the flow's execution does not exist.
    expect((await apiClient(`${second.url}/crews/notes`).get(`/status/${id}`)).status).toBe(404);
  });
});
