import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeOpenAI,
  type FakeOpenAIServer,
  type RecordedRequest,
} from '../support/fake-openai-server.ts';
import { numberedAnswers, requestsMentioning, userText } from '../support/model-requests.ts';
import {
  apiClient,
  crewsDir,
  spawnCrewd,
  tempDatabase,
  type CrewdProcess,
  killHard,
} from '../support/crewd.ts';
import { expectFinishedAfterLosingTheNote } from '../support/plain-crew.ts';
import { until } from '../support/until.ts';

let model: FakeOpenAIServer;
let slowTask: string | null = null;
const running: CrewdProcess[] = [];

const requestsFor = (words: string): RecordedRequest[] => requestsMentioning(model, words);

async function serve(crew: string, database: string): Promise<CrewdProcess> {
  // A killed process cannot release its executions, but its liveness lock dies with it: the next one continues them
  // at once. The lease is far longer than the test may take, so only the lock explains the takeover.
  const crewd = await spawnCrewd({
    crewDir: join(crewsDir, crew),
    database,
    modelUrl: model.url,
    env: { CREWD_EXECUTION_LEASE_MS: '300000' },
  });
  running.push(crewd);
  return crewd;
}

beforeAll(async () => {
  model = await startFakeOpenAI({
    respond: numberedAnswers((request) => slowTask !== null && userText(request).includes(slowTask)),
  });
});

afterAll(async () => {
  for (const crewd of running) crewd.child.kill('SIGKILL');
  await model.close();
});

describe('crash recovery', () => {
  it('finishes an execution killed mid-task without running a saved task again', async () => {
    const database = tempDatabase();
    const first = await serve('plain-crew', database);
    slowTask = 'Write the note about comets';
    const kickoff = await apiClient(first.url).post('/kickoff', { inputs: { topic: 'comets' } });
    expect(kickoff.status).toBe(200);
    await until(() => requestsFor('Write the note about comets').length === 1);
    await killHard(first);

    slowTask = null;
    const second = await serve('plain-crew', database);
    const done = await apiClient(second.url).waitForState(kickoff.body.kickoff_id, ['SUCCESS', 'FAILED']);
    expectFinishedAfterLosingTheNote(model, done, 'comets');
    await killHard(second);
  });

  it('keeps a paused execution across a kill and resumes it after the restart', async () => {
    const database = tempDatabase();
    const first = await serve('review-crew', database);
    const kickoff = await apiClient(first.url).post('/kickoff', {
      inputs: { product: 'sofas', audience: 'shops' },
    });
    const id = kickoff.body.kickoff_id as string;
    await apiClient(first.url).waitForState(id, ['PAUSED']);
    await killHard(first);

    const second = await serve('review-crew', database);
    const api = apiClient(second.url);
    const paused = await api.get(`/status/${id}`);
    expect(paused.body.state).toBe('PAUSED');
    expect(paused.body.status).toBe('Pending Human Input');
    const resumed = await api.post('/resume', {
      execution_id: id,
      task_id: 'draft',
      human_feedback: 'Looks right.',
      is_approve: true,
    });
    expect(resumed.body.status).toBe('resumed');
    const done = await api.waitForState(id, ['SUCCESS', 'FAILED']);
    expect(done.body.state).toBe('SUCCESS');
    expect(requestsFor('List three facts about sofas')).toHaveLength(1);
    expect(requestsFor('Draft a one-paragraph brief about sofas')).toHaveLength(1);
    await killHard(second);
  });
});
