import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAIServer, type FakeReply } from '../support/fake-openai-server.ts';
import { apiClient, spawnCrewd, tempDatabase, type CrewdProcess, killHard } from '../support/crewd.ts';
import { createTestDatabase } from '../support/postgres-database.ts';
import { until } from '../support/until.ts';
import { userCrew } from '../support/user-crew.ts';

const flowDir = join(import.meta.dirname, 'flows', 'research-flow');
let model: FakeOpenAIServer;
/** Model calls whose prompt holds this are held (never answered): the process is killed while one waits. */
let holding: string | null = null;
const running: CrewdProcess[] = [];

/** Requests whose messages mention `words`. */
const callsFor = (words: string): number =>
  model.requests.filter((request) => JSON.stringify(request.body?.messages ?? '').includes(words)).length;

function answer(request: { body: { messages?: unknown } }): FakeReply {
  const text = JSON.stringify(request.body.messages ?? '');
  if (holding !== null && text.includes(holding)) return { heldUntil: new Promise(() => {}) };
  if (text.includes('Research step')) return { content: 'Tea was first drunk in China.' };
  if (text.includes('Outline step')) return { content: 'Origin; spread; today.' };
  return { content: 'Tea came from China and spread everywhere.' };
}

async function serve(dir: string, database: string): Promise<CrewdProcess> {
  // The lease is far longer than the test: only the killed process's lost liveness lock explains the takeover.
  const crewd = await spawnCrewd({
    crewDir: dir,
    database,
    modelUrl: model.url,
    env: { CREWD_EXECUTION_LEASE_MS: '300000' },
  });
  running.push(crewd);
  return crewd;
}

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: answer });
});

afterAll(async () => {
  for (const crewd of running) crewd.child.kill('SIGKILL');
  await model.close();
});

const databases: readonly [string, () => Promise<{ url: string; drop: () => Promise<void> }>][] = [
  ['SQLite', () => Promise.resolve({ url: tempDatabase(), drop: () => Promise.resolve() })],
  ['PostgreSQL', createTestDatabase],
];

describe.each(databases)('a flow killed with SIGKILL on %s', (_name, createDatabase) => {
  it('goes on in the next process without running a completed method or model call again', async () => {
    const dir = userCrew(flowDir);
    const created = await createDatabase();
    const database = created.url;
    const before = {
      research: callsFor('Research step'),
      outline: callsFor('Outline step: outline'),
      note: callsFor('Note step'),
    };
    const first = await serve(dir, database);
    holding = 'Note step';
    const kickoff = await apiClient(first.url).post('/kickoff', { inputs: { topic: 'tea' } });
    expect(kickoff.status).toBe(200);
    const id = kickoff.body.kickoff_id as string;
    // Killed while the crew's second task waits for its model: the method and the first task completed.
    await until(() => callsFor('Note step') === before.note + 1);
    await killHard(first);

    holding = null;
    const second = await serve(dir, database);
    const api = apiClient(second.url);
    const done = await api.waitForState(id, ['SUCCESS', 'FAILED']);
    expect(done.body.state).toBe('SUCCESS');
    expect(done.body.result).toBe('Tea came from China and spread everywhere.');
    expect(done.body.flow_methods).toEqual(['research', 'write_up']);
    expect(callsFor('Research step')).toBe(before.research + 1);
    expect(callsFor('Outline step: outline')).toBe(before.outline + 1);
    // The call cut short by the kill is made again; nothing that completed is.
    expect(callsFor('Note step')).toBe(before.note + 2);
    await killHard(second);
    await created.drop();
  });
});
