import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeOpenAI,
  type FakeOpenAIServer,
  type RecordedRequest,
} from '../support/fake-openai-server.ts';
import { numberedAnswers, requestsMentioning, userText } from '../support/model-requests.ts';
import { apiClient, crewsDir, spawnCrewd, startCrewd, type CrewdProcess } from '../support/crewd.ts';
import { postgresAvailability, postgresRequired } from '../support/postgres.ts';
import { createTestDatabase } from '../support/postgres-database.ts';
import { until } from '../support/until.ts';

const availability = await postgresAvailability();
if (!availability.reachable && postgresRequired()) {
  throw new Error(`${availability.reason} (set CREWD_SKIP_POSTGRES=1 to skip the PostgreSQL suites)`);
}
const skipReason = availability.reachable ? '' : ` (skipped: ${availability.reason})`;

let model: FakeOpenAIServer;
let slowTask: string | null = null;
const databases: { drop: () => Promise<void> }[] = [];
const processes: CrewdProcess[] = [];

const requestsFor = (words: string): RecordedRequest[] => requestsMentioning(model, words);

async function database(): Promise<string> {
  const created = await createTestDatabase();
  databases.push(created);
  return created.url;
}

describe.skipIf(!availability.reachable)(`the service on PostgreSQL${skipReason}`, () => {
  beforeAll(async () => {
    model = await startFakeOpenAI({
      respond: numberedAnswers((request) => slowTask !== null && userText(request).includes(slowTask)),
    });
  });

  afterAll(async () => {
    for (const crewd of processes) crewd.child.kill('SIGKILL');
    await Promise.all(processes.map((crewd) => crewd.exited));
    await model.close();
    for (const created of databases) await created.drop();
  });

  it('runs, pauses and resumes executions, with exactly one of two concurrent resumes winning', async () => {
    const crewd = await startCrewd({
      crewDir: join(crewsDir, 'review-crew'),
      database: await database(),
      modelUrl: model.url,
    });
    try {
      const api = apiClient(crewd.url);
      const kickoff = await api.post('/kickoff', { inputs: { product: 'canoes', audience: 'clubs' } });
      const id = kickoff.body.kickoff_id as string;
      const paused = await api.waitForState(id, ['PAUSED']);
      expect(paused.body.status).toBe('Pending Human Input');

      const body = { execution_id: id, task_id: 'draft', human_feedback: 'fine', is_approve: true };
      const answers = await Promise.all([api.post('/resume', body), api.post('/resume', body)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);

      const done = await api.waitForState(id, ['SUCCESS', 'FAILED']);
      expect(done.body.state).toBe('SUCCESS');
      expect(done.body.tasks).toHaveLength(3);
      expect(requestsFor('Write the final brief about canoes')).toHaveLength(1);

      const listed = await api.get('/executions?state=SUCCESS');
      expect(listed.body.items.map((item: { kickoff_id: string }) => item.kickoff_id)).toContain(id);
    } finally {
      await crewd.close();
    }
  });

  it('finishes an execution killed mid-task after a restart, without re-running saved tasks', async () => {
    const url = await database();
    // A killed process cannot release its executions: the next one continues them once their leases run out.
    const options = {
      crewDir: join(crewsDir, 'plain-crew'),
      database: url,
      modelUrl: model.url,
      env: { CREWD_EXECUTION_LEASE_MS: '1000' },
    };
    const first = await spawnCrewd(options);
    processes.push(first);
    slowTask = 'Write the note about geysers';
    const kickoff = await apiClient(first.url).post('/kickoff', { inputs: { topic: 'geysers' } });
    await until(() => requestsFor('Write the note about geysers').length > 0);
    first.child.kill('SIGKILL');
    await first.exited;

    slowTask = null;
    const second = await spawnCrewd(options);
    processes.push(second);
    const done = await apiClient(second.url).waitForState(kickoff.body.kickoff_id, ['SUCCESS', 'FAILED']);
    expect(done.body.state).toBe('SUCCESS');
    expect(requestsFor('Outline a note about geysers')).toHaveLength(1);
    expect(requestsFor('Write the note about geysers')).toHaveLength(2);
  });
});
