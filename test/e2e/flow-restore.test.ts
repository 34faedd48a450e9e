import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { apiClient, startCrewd, tempDatabase, testToken } from '../support/crewd.ts';
import { userCrew } from '../support/user-crew.ts';
import { userTokens } from '../support/user-tokens.ts';

const counterFlow = join(import.meta.dirname, 'flows', 'counter-flow');

/** The counter flow as another served flow, and as one without `persist`. */
function variant(name: string, persist: boolean): string {
  const dir = userCrew(counterFlow);
  const file = join(dir, 'flow.yaml');
  const text = readFileSync(file, 'utf8').replace('name: CounterFlow', `name: ${name}`);
  writeFileSync(file, persist ? text : text.replace('persist: {enabled: true}\n', ''));
  return dir;
}

let model: FakeOpenAIServer;
let crewd: RunningServer;
let aliceToken: string;
let bobToken: string;

beforeAll(async () => {
  model = await startFakeOpenAI();
  const database = tempDatabase();
  [aliceToken, bobToken] = (await userTokens(database, 'alice', 'bob')) as [string, string];
  const counter = userCrew(counterFlow);
  crewd = await startCrewd({
    crewDir: counter,
    crews: [
      { name: 'counter', dir: counter },
      { name: 'other-counter', dir: variant('OtherCounterFlow', true) },
      { name: 'plain-counter', dir: variant('PlainCounterFlow', false) },
    ],
    modelUrl: model.url,
    database,
    env: { PATH: process.env.PATH ?? '', CREWD_PYTHON: 'python3', CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION: '1' },
  });
});

afterAll(async () => {
  await crewd.close();
  await model.close();
});

/** Kicks `crew` off with `body` as `token`, and answers the state its run ended with. */
async function run(
  crew: string,
  body: Record<string, unknown>,
  token = testToken,
): Promise<Record<string, unknown>> {
  const api = apiClient(`${crewd.url}/crews/${crew}`, token);
  const kickoff = await api.post('/kickoff', { inputs: {}, ...body });
  expect(kickoff.status).toBe(200);
  const done = await api.waitForState(kickoff.body.kickoff_id as string, ['SUCCESS', 'FAILED']);
  expect(done.body.state).toBe('SUCCESS');
  return done.body.flow_state as Record<string, unknown>;
}

describe('a flow with flow-level persist, kicked off with a state id', () => {
  it('starts from the state its last run under that id left, and merges the inputs into it', async () => {
    expect(await run('counter', { inputs: { id: 'tally', label: 'first' } })).toEqual({
      id: 'tally',
      count: 1,
      label: 'first',
    });
    // The label the first run was given stays; the count goes on.
    expect(await run('counter', { inputs: { id: 'tally' } })).toEqual({
      id: 'tally',
      count: 2,
      label: 'first',
    });
    expect(await run('counter', { inputs: { id: 'tally', label: 'third' } })).toMatchObject({
      count: 3,
      label: 'third',
    });
  });

  it('restores a state id a run was given without asking for one', async () => {
    const first = await run('counter', { inputs: {} });
    expect(first).toMatchObject({ count: 1 });
    expect(typeof first.id).toBe('string');
    expect(await run('counter', { inputs: { id: first.id } })).toEqual({ ...first, count: 2 });
  });

  it('starts from the state a failed run left when its last completed method ended', async () => {
    const api = apiClient(`${crewd.url}/crews/counter`);
    // A label that is no text fails `report`, after `count` completed.
    const kickoff = await api.post('/kickoff', { inputs: { id: 'broken', label: 5 } });
    const failed = await api.waitForState(kickoff.body.kickoff_id as string, ['SUCCESS', 'FAILED']);
    expect(failed.body).toMatchObject({ state: 'FAILED', flow_state: { id: 'broken', count: 1 } });
    expect(await run('counter', { inputs: { id: 'broken', label: 'fixed' } })).toEqual({
      id: 'broken',
      count: 2,
      label: 'fixed',
    });
  });

  it('starts from a fresh state under the id when nothing was saved under it', async () => {
    expect(await run('counter', { inputs: { id: 'never-used' } })).toEqual({
      id: 'never-used',
      count: 1,
      label: 'none',
    });
  });

  it("finds only the states of executions the caller's token can see", async () => {
    expect(await run('counter', { inputs: { id: 'shared-name' } }, aliceToken)).toMatchObject({ count: 1 });
    expect(await run('counter', { inputs: { id: 'shared-name' } }, aliceToken)).toMatchObject({ count: 2 });
    // Bob cannot see Alice's executions: her state id is a miss for him, as if it were never used.
    expect(await run('counter', { inputs: { id: 'shared-name' } }, bobToken)).toEqual({
      id: 'shared-name',
      count: 1,
      label: 'none',
    });
    // Nor can she see his, newer though it is.
    expect(await run('counter', { inputs: { id: 'shared-name' } }, aliceToken)).toMatchObject({ count: 3 });
    // The organization token sees every one: the newest is Alice's.
    expect(await run('counter', { inputs: { id: 'shared-name' } })).toMatchObject({ count: 4 });
  });

  it("never loads another served flow's state", async () => {
    await run('other-counter', { inputs: { id: 'cross' } });
    await run('other-counter', { inputs: { id: 'cross' } });
    expect(await run('counter', { inputs: { id: 'cross' } })).toMatchObject({ id: 'cross', count: 1 });
    expect(await run('counter', { restoreFromStateId: 'cross' })).toMatchObject({ count: 2 });
    expect(await run('other-counter', { inputs: { id: 'cross' } })).toMatchObject({ count: 3 });
  });
});

describe('restoreFromStateId', () => {
  it('forks a saved state into a new state id, leaving the original as it was', async () => {
    await run('counter', { inputs: { id: 'trunk', label: 'trunk' } });
    await run('counter', { inputs: { id: 'trunk' } });
    const fork = await run('counter', { restoreFromStateId: 'trunk', inputs: { label: 'fork' } });
    expect(fork).toMatchObject({ count: 3, label: 'fork' });
    expect(fork.id).not.toBe('trunk');
    // The fork goes on under its own id; the original's next restore is where the original left it.
    expect(await run('counter', { inputs: { id: fork.id } })).toMatchObject({ id: fork.id, count: 4 });
    expect(await run('counter', { inputs: { id: 'trunk' } })).toEqual({
      id: 'trunk',
      count: 3,
      label: 'trunk',
    });
  });

  it('takes inputs.id as the new state id, and its snake_case spelling', async () => {
    await run('counter', { inputs: { id: 'root' } });
    expect(await run('counter', { restore_from_state_id: 'root', inputs: { id: 'branch' } })).toMatchObject({
      id: 'branch',
      count: 2,
    });
    expect(await run('counter', { inputs: { id: 'root' } })).toMatchObject({ count: 2 });
  });

  it("starts fresh when the state is not found, or is another user's", async () => {
    expect(await run('counter', { restoreFromStateId: 'nowhere' })).toMatchObject({ count: 1 });
    await run('counter', { inputs: { id: 'bobs' } }, bobToken);
    expect(await run('counter', { restoreFromStateId: 'bobs' }, aliceToken)).toMatchObject({ count: 1 });
    expect(await run('counter', { restoreFromStateId: 'bobs' }, bobToken)).toMatchObject({ count: 2 });
  });
});

describe('a flow without flow-level persist', () => {
  it('only names the state id, and ignores restoreFromStateId', async () => {
    expect(await run('plain-counter', { inputs: { id: 'plain' } })).toEqual({
      id: 'plain',
      count: 1,
      label: 'none',
    });
    expect(await run('plain-counter', { inputs: { id: 'plain' } })).toEqual({
      id: 'plain',
      count: 1,
      label: 'none',
    });
    const forked = await run('plain-counter', { restoreFromStateId: 'plain' });
    expect(forked).toMatchObject({ count: 1 });
    expect(forked.id).not.toBe('plain');
  });
});

describe('the API description', () => {
  it('describes restoreFromStateId in the kickoff body', async () => {
    const document = (await apiClient(`${crewd.url}/crews/counter`, null).get('/openapi.json')).body;
    const properties =
      document.paths['/kickoff'].post.requestBody.content['application/json'].schema.properties;
    expect(properties.restoreFromStateId).toMatchObject({ type: 'string' });
    expect(properties.restoreFromStateId.description).toContain('persist');
    expect(properties.restore_from_state_id).toMatchObject({ type: 'string' });
  });
});
