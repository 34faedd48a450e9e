import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { apiClient, startCrewd } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;
let crewd: RunningServer;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  model = await startFakeOpenAI();
  crewd = await startCrewd({
    crewDir: userCrew(join(import.meta.dirname, 'flows', 'graph-flow')),
    modelUrl: model.url,
  });
  api = apiClient(crewd.url);
});

afterAll(async () => {
  await crewd.close();
  await model.close();
});

describe('a served flow routes as crewAI routes', () => {
  it('loops through its router, re-arms the or listener, joins two branches with and, and runs each', async () => {
    const kickoff = await api.post('/kickoff', { inputs: { rounds: 3 } });
    expect(kickoff.status).toBe(200);
    const done = await api.waitForState(kickoff.body.kickoff_id as string, ['SUCCESS', 'FAILED']);
    expect(done.body).toMatchObject({ state: 'SUCCESS', result: '15' });
    const route = done.body.flow_methods as string[];
    expect(route.slice(0, 7)).toEqual(['begin', 'work', 'decide', 'work', 'decide', 'work', 'decide']);
    expect(route.slice(7, 9).sort()).toEqual(['counted', 'doubled']);
    expect(route.slice(9)).toEqual(['joined']);
    expect(done.body.flow_state).toMatchObject({ rounds: 3, rows: [1, 2, 3] });
    expect(model.requests).toHaveLength(0);
  });

  it('takes one round when the state asks for one', async () => {
    const kickoff = await api.post('/kickoff', { inputs: { rounds: 1, rows: [5, 5, 5] } });
    const done = await api.waitForState(kickoff.body.kickoff_id as string, ['SUCCESS', 'FAILED']);
    expect(done.body).toMatchObject({ state: 'SUCCESS', result: '31' });
    expect((done.body.flow_methods as string[]).filter((method) => method === 'work')).toHaveLength(1);
  });

  it('answers 422 naming a field of the wrong type, and starts nothing', async () => {
    const answer = await api.post('/kickoff', { inputs: { rounds: 'many' } });
    expect(answer.status).toBe(422);
    expect(JSON.stringify(answer.body.details)).toContain('rounds');
    expect((await api.get('/executions?limit=100')).body.items).toHaveLength(2);
  });
});
