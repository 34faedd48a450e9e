import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { openStore } from '../../src/open-store.ts';
import { createTokenService, type NewToken } from '../../src/service/token-service.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { numberedAnswers } from '../support/model-requests.ts';
import { apiClient, crewsDir, startCrewd, tempDatabase, testToken } from '../support/crewd.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;
let crewd: RunningServer;
let database: string;

/** A token made as `crewd tokens create` makes it, on the server's database. */
async function newToken(token: NewToken): Promise<string> {
  const store = await openStore(database);
  try {
    return (await createTokenService({ store, clock: () => new Date() }).create(token)).secret;
  } finally {
    await store.close();
  }
}

const org = (base = '') => apiClient(`${crewd.url}${base}`);

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: numberedAnswers() });
  database = tempDatabase();
  const plain = userCrew(join(crewsDir, 'plain-crew'));
  crewd = await startCrewd({
    crewDir: plain,
    modelUrl: model.url,
    database,
    crews: [
      { name: 'notes', dir: plain },
      { name: 'briefs', dir: userCrew(join(crewsDir, 'review-crew')) },
      { name: 'reports', dir: userCrew(join(crewsDir, 'structured-crew')) },
      { name: 'review', dir: userCrew(join(import.meta.dirname, 'flows', 'review-flow')) },
    ],
  });
});

afterAll(async () => {
  await crewd.close();
  await model.close();
});

async function finishedNote(api: ReturnType<typeof apiClient>, topic: string): Promise<string> {
  const kickoff = await api.post('/kickoff', { inputs: { topic } });
  expect(kickoff.status).toBe(200);
  await api.waitForState(kickoff.body.kickoff_id, ['SUCCESS']);
  return kickoff.body.kickoff_id as string;
}

describe('a server of three crews and a flow', () => {
  it('lists what it serves, each with its base URL and inputs', async () => {
    const listed = await org().get('/crews');
    expect(listed.status).toBe(200);
    expect(listed.body.crews.map((crew: { name: string }) => crew.name)).toEqual([
      'notes',
      'briefs',
      'reports',
      'review',
    ]);
    expect(listed.body.crews[0]).toEqual({
      name: 'notes',
      kind: 'crew',
      base_url: '/crews/notes',
      inputs: ['topic'],
    });
    expect(listed.body.crews[1].inputs).toEqual(['product', 'audience']);
    expect(listed.body.crews[3]).toEqual({
      name: 'review',
      kind: 'flow',
      base_url: '/crews/review',
      inputs: ['topic', 'audience'],
    });
  });

  it('runs the flow under its base URL beside the crews, its review answered there alone', async () => {
    const review = org('/crews/review');
    const kickoff = await review.post('/kickoff', { inputs: { topic: 'kettles' } });
    expect(kickoff.status).toBe(200);
    const id = kickoff.body.kickoff_id as string;
    const paused = await review.waitForState(id, ['PAUSED']);
    expect(paused.body.pending_human_input).toMatchObject({
      task_id: 'review',
      emit: ['approved', 'needs_changes'],
    });
    const elsewhere = await org('/crews/notes').post('/resume', {
      execution_id: id,
      task_id: 'review',
      human_feedback: 'approved',
      is_approve: true,
    });
    expect(elsewhere.status).toBe(404);
    const resumed = await review.post('/resume', {
      execution_id: id,
      task_id: 'review',
      human_feedback: 'approved',
      is_approve: true,
    });
    expect(resumed.status).toBe(200);
    const done = await review.waitForState(id, ['SUCCESS', 'FAILED']);
    expect(done.body.state).toBe('SUCCESS');
    expect(done.body.flow_methods).toEqual(['draft', 'review', 'publish']);
    expect((await org('/crews/notes').get(`/status/${id}`)).status).toBe(404);
  });

  it('answers the whole interface under each base URL, each crew with its own inputs', async () => {
    const notes = org('/crews/notes');
    expect((await notes.get('/inputs')).body).toEqual({ inputs: ['topic'] });
    expect((await org('/crews/briefs').get('/inputs')).body).toEqual({ inputs: ['product', 'audience'] });
    const missing = await org('/crews/briefs').post('/kickoff', { inputs: { topic: 'kettles' } });
    expect(missing.status).toBe(422);
    expect(missing.body.details.missing_inputs).toEqual(['product', 'audience']);

    const id = await finishedNote(notes, 'kettles');
    const status = await notes.get(`/${id}/status`);
    expect(status.body.tasks.map((task: { task_id: string }) => task.task_id)).toEqual([
      'outline',
      'note',
      'summary',
    ]);
    expect((await notes.get(`/executions/${id}`)).status).toBe(200);
    const events = await fetch(`${crewd.url}/crews/notes/executions/${id}/events`, {
      headers: { authorization: `Bearer ${testToken}` },
    });
    expect(events.status).toBe(200);
    expect(await events.text()).toContain('event: execution-end');
    expect((await notes.get('/crew')).body.name).toBe('plain-crew');
    expect(
      (await org('/crews/briefs').get('/crew')).body.tasks.map((task: { name: string }) => task.name),
    ).toEqual(['gather', 'draft', 'publish']);
  });

  it('answers 404 for an execution of one crew under another crew', async () => {
    const id = await finishedNote(org('/crews/notes'), 'toasters');
    const briefs = org('/crews/briefs');
    for (const path of [`/status/${id}`, `/${id}/status`, `/executions/${id}`, `/executions/${id}/events`]) {
      const answer = await briefs.get(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body.code, path).toBe('NOT_FOUND');
    }
    const cancel = await briefs.post(`/cancel/${id}`);
    expect(cancel.status).toBe(404);
    const listed = await briefs.get('/executions?limit=100');
    expect(listed.body.items.map((item: { kickoff_id: string }) => item.kickoff_id)).not.toContain(id);
  });

  it('pauses and resumes a crew under its base URL, and at the root', async () => {
    const briefs = org('/crews/briefs');
    const kickoff = await briefs.post('/kickoff', { inputs: { product: 'kettles', audience: 'buyers' } });
    const id = kickoff.body.kickoff_id as string;
    const paused = await briefs.waitForState(id, ['PAUSED']);
    expect(paused.body.pending_human_input.task_id).toBe('draft');
    // The root answers for every crew's executions: what `crewd list`, `pending` and the console read.
    const pending = await org().get('/executions?state=PAUSED');
    expect(pending.body.items.map((item: { kickoff_id: string }) => item.kickoff_id)).toContain(id);
    expect((await org().get(`/status/${id}`)).body.state).toBe('PAUSED');

    const resumed = await org().post('/resume', {
      execution_id: id,
      task_id: 'draft',
      human_feedback: 'Fine.',
      is_approve: true,
    });
    expect(resumed.body.status).toBe('resumed');
    const done = await briefs.waitForState(id, ['SUCCESS', 'FAILED']);
    expect(done.body.state).toBe('SUCCESS');
  });

  it('takes kickoffs only under a base URL when it serves several crews', async () => {
    const root = await org().post('/kickoff', { inputs: { topic: 'kettles' } });
    expect(root.status).toBe(404);
    expect(root.body.code).toBe('NOT_FOUND');
  });

  it("describes each crew's API under its base URL", async () => {
    const document = (await apiClient(`${crewd.url}/crews/briefs`, null).get('/openapi.json')).body;
    expect(document.servers).toEqual([{ url: '/crews/briefs' }]);
    const kickoff = document.paths['/kickoff'].post.requestBody.content['application/json'];
    expect(kickoff.schema.properties.inputs.required).toEqual(['product', 'audience']);
    expect(Object.keys(document.paths)).toContain('/status/{kickoffId}');
    const root = (await apiClient(crewd.url, null).get('/openapi.json')).body;
    expect(Object.keys(root.paths).filter((path) => path.startsWith('/crews/'))).toEqual([]);
  });
});

describe('tokens limited to crews', () => {
  it('refuses a token limited to one crew under the others, as an invalid token', async () => {
    const secret = await newToken({ kind: 'org', crews: ['notes'] });
    const notes = apiClient(`${crewd.url}/crews/notes`, secret);
    const briefs = apiClient(`${crewd.url}/crews/briefs`, secret);

    expect((await notes.get('/inputs')).status).toBe(200);
    const id = await finishedNote(notes, 'lamps');
    for (const answer of [
      await briefs.get('/inputs'),
      await briefs.post('/kickoff', { inputs: { product: 'lamps', audience: 'buyers' } }),
      await briefs.get('/executions'),
      await apiClient(`${crewd.url}/crews/reports`, secret).get('/crew'),
      await apiClient(`${crewd.url}/crews/review`, secret).post('/kickoff', { inputs: { topic: 'lamps' } }),
    ]) {
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({
        error: 'Unauthorized',
        message: 'Invalid or missing bearer token',
      });
    }
    // At the root it sees the crews it reaches, and nothing of the others.
    const others = await finishedNote(org('/crews/notes'), 'chairs');
    const briefsId = (
      await org('/crews/briefs').post('/kickoff', { inputs: { product: 'x', audience: 'y' } })
    ).body.kickoff_id as string;
    const root = apiClient(crewd.url, secret);
    const listed = (await root.get('/executions?limit=100')).body.items.map(
      (item: { kickoff_id: string }) => item.kickoff_id,
    );
    expect(listed).toContain(id);
    expect(listed).toContain(others);
    expect(listed).not.toContain(briefsId);
    expect((await root.get(`/status/${briefsId}`)).status).toBe(404);
    expect((await root.get('/crews')).body.crews.map((crew: { name: string }) => crew.name)).toEqual([
      'notes',
    ]);
  });

  it("keeps each user's executions their own across crews", async () => {
    const alice = await newToken({ kind: 'user', userId: 'alice' });
    const bob = await newToken({ kind: 'user', userId: 'bob' });
    const aliceNote = await finishedNote(apiClient(`${crewd.url}/crews/notes`, alice), 'desks');
    const aliceBrief = (
      await apiClient(`${crewd.url}/crews/briefs`, alice).post('/kickoff', {
        inputs: { product: 'desks', audience: 'buyers' },
      })
    ).body.kickoff_id as string;

    for (const base of ['', '/crews/notes', '/crews/briefs']) {
      const asBob = apiClient(`${crewd.url}${base}`, bob);
      const listed = (await asBob.get('/executions?limit=100')).body.items;
      expect(listed, base).toEqual([]);
      expect((await asBob.get(`/status/${aliceNote}`)).status, base).toBe(404);
      expect((await asBob.get(`/status/${aliceBrief}`)).status, base).toBe(404);
      expect((await asBob.post(`/cancel/${aliceBrief}`)).status, base).toBe(404);
    }
    const asAlice = (await apiClient(crewd.url, alice).get('/executions?limit=100')).body.items.map(
      (item: { kickoff_id: string }) => item.kickoff_id,
    );
    expect(asAlice).toEqual(expect.arrayContaining([aliceNote, aliceBrief]));
  });
});

describe('a server of one crew', () => {
  it('answers at the root as before, and under the base URL named after its directory', async () => {
    const single = await startCrewd({ crewDir: userCrew(join(crewsDir, 'plain-crew')), modelUrl: model.url });
    try {
      const root = apiClient(single.url);
      const id = await finishedNote(root, 'bicycles');
      const base = apiClient(`${single.url}/crews/plain-crew`);
      expect((await base.get(`/status/${id}`)).body.state).toBe('SUCCESS');
      expect((await base.get('/inputs')).body).toEqual({ inputs: ['topic'] });
      const underBase = await finishedNote(base, 'scooters');
      expect((await root.get(`/status/${underBase}`)).body.state).toBe('SUCCESS');
      expect((await root.get('/crews')).body.crews).toEqual([
        { name: 'plain-crew', kind: 'crew', base_url: '/crews/plain-crew', inputs: ['topic'] },
      ]);
    } finally {
      await single.close();
    }
  });
});
