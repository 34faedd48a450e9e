import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { HeldPrompts } from '../support/held-prompts.ts';
import { heldNumberedAnswers } from '../support/model-requests.ts';
import { createTestDatabase } from '../support/postgres-database.ts';
import { apiClient, crewsDir, startCrewd } from '../support/crewd.ts';
import { userCrew } from '../support/user-crew.ts';

const held = new HeldPrompts();
let model: FakeOpenAIServer;
let database: { url: string; drop: () => Promise<void> };
let notesServer: RunningServer;
let briefsServer: RunningServer;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: heldNumberedAnswers(held) });
  database = await createTestDatabase();
  // One execution at a time in each, and leases far longer than the test: an execution held by the process that
  // does not serve its crew would wait out the whole test.
  const env = { CREWD_CONCURRENCY: '1', CREWD_EXECUTION_LEASE_MS: '3600000' };
  const notes = userCrew(join(crewsDir, 'plain-crew'));
  const briefs = userCrew(join(crewsDir, 'review-crew'));
  notesServer = await startCrewd({
    crewDir: notes,
    crews: [{ name: 'notes', dir: notes }],
    modelUrl: model.url,
    database: database.url,
    env,
  });
  briefsServer = await startCrewd({
    crewDir: briefs,
    crews: [{ name: 'briefs', dir: briefs }],
    modelUrl: model.url,
    database: database.url,
    env,
  });
});

afterAll(async () => {
  held.letAllGo();
  await briefsServer?.close();
  await notesServer?.close();
  await database?.drop();
  await model?.close();
});

describe('processes serving different crews on one PostgreSQL database', () => {
  it('each runs the waiting executions of its own crews, never taking another crew’s', async () => {
    const notes = apiClient(`${notesServer.url}/crews/notes`);
    const briefs = apiClient(`${briefsServer.url}/crews/briefs`);
    held.hold('Outline a note about kites');
    held.hold('List three facts about lamps');
    const kites = await notes.post('/kickoff', { inputs: { topic: 'kites' } });
    const lamps = await briefs.post('/kickoff', { inputs: { product: 'lamps', audience: 'buyers' } });
    // Both processes are full: these two wait, unleased, for a process with room. The brief is the older.
    const sofas = await briefs.post('/kickoff', { inputs: { product: 'sofas', audience: 'buyers' } });
    const tides = await notes.post('/kickoff', { inputs: { topic: 'tides' } });
    for (const kickoff of [kites, lamps, sofas, tides]) expect(kickoff.status).toBe(200);
    expect((await briefs.get(`/status/${sofas.body.kickoff_id as string}`)).body.state).toBe('PENDING');

    // The notes process gets room first: it takes its own waiting note, not the older brief.
    held.letGo('Outline a note about kites');
    expect((await notes.waitForState(kites.body.kickoff_id as string, ['SUCCESS'])).body.state).toBe(
      'SUCCESS',
    );
    expect((await notes.waitForState(tides.body.kickoff_id as string, ['SUCCESS'])).body.state).toBe(
      'SUCCESS',
    );

    // The briefs process, once its first brief pauses for review, runs the waiting brief at once.
    held.letGo('List three facts about lamps');
    expect((await briefs.waitForState(lamps.body.kickoff_id as string, ['PAUSED'])).body.state).toBe(
      'PAUSED',
    );
    const waited = await briefs.waitForState(sofas.body.kickoff_id as string, ['PAUSED']);
    expect(waited.body.pending_human_input.task_id).toBe('draft');
  });
});
