import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, crewsDir, spawnCrewd, type CrewdProcess } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { HeldPrompts } from '../support/held-prompts.ts';
import { heldNumberedAnswers, requestsMentioning } from '../support/model-requests.ts';
import { startOwnPostgres, type OwnPostgres } from '../support/own-postgres.ts';
import { until } from '../support/until.ts';

let postgres: OwnPostgres;
let model: FakeOpenAIServer;
const held = new HeldPrompts();
const processes: CrewdProcess[] = [];

const notePrompt = (topic: string): string => `Write the note about ${topic}`;

/** True once every process answers /health/ready with 503: the database is down for all of them. */
async function everyProcessSeesTheOutage(): Promise<boolean> {
  const answers = await Promise.all(
    processes.map((crewd) => apiClient(crewd.url, null).get('/health/ready')),
  );
  return answers.every((answer) => answer.status === 503);
}

describe('PostgreSQL down and back with executions in flight on two processes (a cluster of the test own)', () => {
  beforeAll(async () => {
    postgres = await startOwnPostgres();
    model = await startFakeOpenAI({ respond: heldNumberedAnswers(held) });
  }, 120_000);

  afterAll(async () => {
    for (const crewd of processes) crewd.child.kill('SIGKILL');
    await Promise.all(processes.map((crewd) => crewd.exited));
    held.letAllGo();
    await model?.close();
    postgres?.stop();
  });

  it('goes on with every execution once the database is back, without waiting for a lease to run out', async () => {
    for (let count = 0; count < 2; count += 1) {
      processes.push(
        await spawnCrewd({
          crewDir: join(crewsDir, 'plain-crew'),
          database: postgres.url,
          modelUrl: model.url,
          env: {
            // Far longer than the test may take: an execution that goes on did so because the processes recovered
            // from the outage, never because a lease ran out and a claim took it over.
            CREWD_EXECUTION_LEASE_MS: '300000',
            // Claims run often, so one runs in the moment between the database coming back and each process
            // taking its liveness lock again: the claims must leave alone what a process is running.
            CREWD_CLAIM_SCAN_MS: '50',
          },
        }),
      );
    }
    const topics = ['kelp', 'coral', 'plankton', 'krill'];
    for (const topic of topics) held.hold(notePrompt(topic));
    const ids = new Map<string, string>();
    for (const [index, topic] of topics.entries()) {
      const kickoff = await apiClient(processes[index % 2]!.url).post('/kickoff', { inputs: { topic } });
      expect(kickoff.status).toBe(200);
      ids.set(topic, kickoff.body.kickoff_id as string);
    }
    // Every execution has saved its outline and waits on the model for its note, two on each process.
    await until(() => topics.every((topic) => requestsMentioning(model, notePrompt(topic)).length === 1));

    await postgres.down();
    await until(everyProcessSeesTheOutage);
    // The notes are answered while the database is down: every execution has a write to make that cannot be made,
    // and makes it again once the database is back.
    const answeredBefore = model.answered.length;
    held.letAllGo();
    await until(() => model.answered.length >= answeredBefore + topics.length);
    await postgres.up();

    for (const topic of topics) {
      const done = await apiClient(processes[1]!.url).waitForState(ids.get(topic)!, [
        'SUCCESS',
        'FAILED',
        'REVOKED',
      ]);
      expect({ topic, state: done.body.state }).toEqual({ topic, state: 'SUCCESS' });
    }
    for (const crewd of processes) expect(crewd.child.exitCode).toBeNull();
  }, 240_000);
});
