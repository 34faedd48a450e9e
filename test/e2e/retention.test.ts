import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCrewd } from '../cli/crewd-command.ts';
import { apiClient, crewsDir, startCrewd, tempDatabase } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { numberedAnswers } from '../support/model-requests.ts';
import { movableClock } from '../support/movable-clock.ts';
import { until } from '../support/until.ts';

const plainCrew = join(crewsDir, 'plain-crew');
const dayMs = 86_400_000;
let model: FakeOpenAIServer;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: numberedAnswers() });
});

afterAll(async () => {
  await model.close();
});

/** Runs `use` with a server of the plain crew on `database` whose clock reads `clock`, and closes it after. */
async function withCrewd<T>(
  database: string,
  clock: () => Date,
  env: Readonly<Record<string, string>>,
  use: (api: ReturnType<typeof apiClient>) => Promise<T>,
): Promise<T> {
  const crewd = await startCrewd({ crewDir: plainCrew, database, modelUrl: model.url, clock, env });
  try {
    return await use(apiClient(crewd.url));
  } finally {
    await crewd.close();
  }
}

/** Runs executions to the end on a server whose clock reads `clock`, each with a file in its workspace. */
function finishedExecutions(database: string, clock: () => Date, count: number): Promise<string[]> {
  return withCrewd(database, clock, {}, async (api) => {
    const ids: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const kickoff = await api.post('/kickoff', { inputs: { topic: `kept ${index}` } });
      const id = kickoff.body.kickoff_id as string;
      await api.waitForState(id, ['SUCCESS']);
      const workspace = join(dirname(database), 'workspace', id);
      mkdirSync(workspace, { recursive: true });
      writeFileSync(join(workspace, 'note.md'), 'written by a file tool');
      ids.push(id);
    }
    return ids;
  });
}

const workspaceOf = (database: string, id: string): string => join(dirname(database), 'workspace', id);

describe('retention', () => {
  it('deletes, at start and with CREWD_RETENTION, finished executions past it with their files', async () => {
    const database = tempDatabase();
    const clock = movableClock();
    const old = await finishedExecutions(database, clock.now, 2);
    clock.advance(20 * dayMs);
    const recent = await finishedExecutions(database, clock.now, 1);
    clock.advance(11 * dayMs);

    await withCrewd(database, clock.now, { CREWD_RETENTION: '30d' }, async (api) => {
      // The files go right after their execution's rows.
      await until(() => old.every((id) => !existsSync(workspaceOf(database, id))));
      for (const id of old) {
        expect((await api.get(`/status/${id}`)).status).toBe(404);
        expect((await api.get(`/executions/${id}/events`)).status).toBe(404);
        expect(existsSync(workspaceOf(database, id))).toBe(false);
      }
      for (const id of recent) {
        expect((await api.get(`/status/${id}`)).body.state).toBe('SUCCESS');
        expect(existsSync(workspaceOf(database, id))).toBe(true);
      }
      const listed = await api.get('/executions');
      expect(listed.body.items.map((item: { kickoff_id: string }) => item.kickoff_id)).toEqual(recent);
    });
  }, 120_000);

  it('deletes while serving, and no longer answers a status it had read before', async () => {
    const clock = movableClock();
    const database = tempDatabase();
    await withCrewd(database, clock.now, { CREWD_RETENTION: '10s' }, async (api) => {
      const kickoff = await api.post('/kickoff', { inputs: { topic: 'soon gone' } });
      const id = kickoff.body.kickoff_id as string;
      await api.waitForState(id, ['SUCCESS']);
      clock.advance(11_000);
      // Passes run every second with a 10 s period.
      await until(async () => (await api.get(`/status/${id}`)).status === 404);
      expect((await api.get('/executions')).body.items).toEqual([]);
    });
  }, 120_000);

  it('refuses a CREWD_RETENTION that is not a period', async () => {
    const serve = await runCrewd(['serve', plainCrew, '--port', '0', '--database', tempDatabase()], {
      env: { CREWD_RETENTION: '30 days', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test' },
    });
    expect(serve.code).toBe(1);
    expect(serve.stderr).toContain('CREWD_RETENTION must be a whole number and a unit (s, m, h, d or w)');
  }, 60_000);
});

describe('crewd prune', () => {
  it('deletes finished executions older than --older-than once, and says how many', async () => {
    const database = tempDatabase();
    const clock = movableClock();
    clock.advance(-40 * dayMs);
    const old = await finishedExecutions(database, clock.now, 2);
    clock.advance(40 * dayMs);
    const recent = await finishedExecutions(database, clock.now, 1);

    const pruned = await runCrewd(['prune', '--older-than', '30d', '--database', database]);
    expect(pruned.stderr).toBe('');
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toBe('Deleted 2 finished executions older than 30d\n');
    expect(old.some((id) => existsSync(workspaceOf(database, id)))).toBe(false);
    expect(existsSync(workspaceOf(database, recent[0]!))).toBe(true);

    const again = await runCrewd(['prune', '--database', database], { env: { CREWD_RETENTION: '30d' } });
    expect(again.stdout).toBe('Deleted 0 finished executions older than 30d\n');

    await withCrewd(database, clock.now, {}, async (api) => {
      expect((await api.get(`/status/${old[0]!}`)).status).toBe(404);
      expect((await api.get(`/status/${recent[0]!}`)).body.state).toBe('SUCCESS');
    });
  }, 120_000);

  it('asks for a period when neither --older-than nor CREWD_RETENTION gives one', async () => {
    const pruned = await runCrewd(['prune', '--database', tempDatabase()]);
    expect(pruned.code).toBe(1);
    expect(pruned.stderr).toBe(
      'crewd: Say how old a finished execution must be to go: --older-than 30d, or set CREWD_RETENTION\n',
    );
  }, 60_000);
});
