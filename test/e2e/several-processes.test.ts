import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { requestsMentioning, userText } from '../support/model-requests.ts';
import { apiClient, crewsDir, spawnCrewd, tempDatabase, type CrewdProcess } from '../support/crewd.ts';
import { expectFinishedAfterLosingTheNote } from '../support/plain-crew.ts';
import { until } from '../support/until.ts';

let model: FakeOpenAIServer;
/** How long the model takes to answer prompts containing each text; others are answered at once. */
const delays = new Map<string, number>();
const processes: CrewdProcess[] = [];
// Long enough that a busy test machine does not let a live lease run out: renewed every third, it takes a stall
// of over 2.5 s for another process to take a live execution over.
const leaseMs = 4000;

const requestsFor = (words: string) => requestsMentioning(model, words);

async function serve(database: string, lease = leaseMs): Promise<CrewdProcess> {
  const crewd = await spawnCrewd({
    crewDir: join(crewsDir, 'plain-crew'),
    database,
    modelUrl: model.url,
    env: { CREWD_EXECUTION_LEASE_MS: String(lease) },
  });
  processes.push(crewd);
  return crewd;
}

beforeAll(async () => {
  let answers = 0;
  model = await startFakeOpenAI({
    respond: (request) => {
      const delayMs = [...delays].find(([words]) => userText(request).includes(words))?.[1];
      return { content: `Answer number ${++answers}.`, ...(delayMs === undefined ? {} : { delayMs }) };
    },
  });
});

afterAll(async () => {
  for (const crewd of processes) crewd.child.kill('SIGKILL');
  await Promise.all(processes.map((crewd) => crewd.exited));
  await model.close();
});

describe('several processes sharing one database', () => {
  it('leave an execution to the process running it, even when a task outlasts the lease', async () => {
    const database = tempDatabase();
    const summariesBefore = requestsFor('Summarise the note in one line').length;
    const first = await serve(database);
    delays.set('Write the note about tides', leaseMs * 2);
    const kickoff = await apiClient(first.url).post('/kickoff', { inputs: { topic: 'tides' } });
    await until(() => requestsFor('Write the note about tides').length === 1);

    // The second looks for unfinished executions when it starts and every half lease after.
    const second = await serve(database);
    const done = await apiClient(second.url).waitForState(kickoff.body.kickoff_id, ['SUCCESS', 'FAILED']);

    expect(done.body.state).toBe('SUCCESS');
    expect(requestsFor('Outline a note about tides')).toHaveLength(1);
    expect(requestsFor('Write the note about tides')).toHaveLength(1);
    expect(requestsFor('Summarise the note in one line')).toHaveLength(summariesBefore + 1);
  });

  it('continue the execution of a killed process at once, though its lease is live', async () => {
    const database = tempDatabase();
    // Far longer than the test may take: only seeing that the process has ended explains the takeover.
    const first = await serve(database, 300_000);
    const second = await serve(database, 300_000);
    delays.set('Write the note about dunes', 60_000);
    const kickoff = await apiClient(first.url).post('/kickoff', { inputs: { topic: 'dunes' } });
    await until(() => requestsFor('Write the note about dunes').length === 1);
    first.child.kill('SIGKILL');
    await first.exited;
    delays.delete('Write the note about dunes');

    const done = await apiClient(second.url).waitForState(kickoff.body.kickoff_id, ['SUCCESS', 'FAILED']);

    expectFinishedAfterLosingTheNote(model, done, 'dunes');
  });
});
