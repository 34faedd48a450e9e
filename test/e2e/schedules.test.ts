import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { createTokenService } from '../../src/service/token-service.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { runCrewd } from '../cli/crewd-command.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { apiClient, crewsDir, startCrewd, tempDatabase, testToken } from '../support/crewd.ts';
import { movableClock, type MovableClock } from '../support/movable-clock.ts';
import { createTestDatabase } from '../support/postgres-database.ts';
import { until } from '../support/until.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;
let crewDir: string;
const dayMs = 24 * 3_600_000;
const inputs = { topic: 'tides' };

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: () => ({ content: 'Noted.' }) });
  crewDir = userCrew(join(crewsDir, 'plain-crew'));
});

afterAll(() => model.close());

/** Moves the clock to `seconds` past the next 03:00 UTC (plus whole days), the tick of `0 3 * * *`. */
function moveToThreeOClock(clock: MovableClock, { days = 0, seconds = 1 } = {}): string {
  const now = clock.now();
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 3));
  if (next.getTime() <= now.getTime()) next.setTime(next.getTime() + dayMs);
  clock.advance(next.getTime() - now.getTime() + days * dayMs + seconds * 1000);
  return new Date(next.getTime() + days * dayMs).toISOString();
}

async function scheduledExecutions(api: ReturnType<typeof apiClient>, scheduleId: string) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads response fields
  const page = (await api.get('/executions?limit=100')).body as { items: any[] };
  return page.items.filter((execution) => execution.meta?.schedule?.id === scheduleId);
}

async function startServer(options: { database: string; clock: MovableClock }): Promise<RunningServer> {
  return startCrewd({
    crewDir,
    database: options.database,
    modelUrl: model.url,
    clock: options.clock.now,
    schedulePollMs: 20,
  });
}

describe('schedules', () => {
  it('starts one execution a tick, with its schedule named in meta', async () => {
    const clock = movableClock();
    const crewd = await startServer({ database: tempDatabase(), clock });
    try {
      const api = apiClient(crewd.url);
      const created = await api.post('/schedules', {
        cron: '0 3 * * *',
        timezone: 'UTC',
        name: 'nightly',
        inputs,
        meta: { team: 'ops' },
      });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      expect(created.body).toMatchObject({ name: 'nightly', paused: false, last_due_at: null });

      moveToThreeOClock(clock);
      await until(async () => (await scheduledExecutions(api, id)).length === 1);
      moveToThreeOClock(clock);
      await until(async () => (await scheduledExecutions(api, id)).length === 2);

      const executions = await scheduledExecutions(api, id);
      expect(executions).toHaveLength(2);
      const status = await api.waitForState(executions[0].kickoff_id as string, ['SUCCESS']);
      expect(status.body.meta).toMatchObject({ team: 'ops', schedule: { id, name: 'nightly' } });
      expect(status.body.meta.schedule.late).toBeUndefined();
      const view = await api.get(`/schedules/${id}`);
      expect(view.body.last_due_at).toMatch(/T03:00:00\.000Z$/);
      expect(new Date(view.body.next_due_at as string).getTime()).toBeGreaterThan(clock.now().getTime());
    } finally {
      await crewd.close();
    }
  });

  it('starts a tick missed while no process ran once, late and saying so, and skips the older ones', async () => {
    const clock = movableClock();
    const database = tempDatabase();
    const first = await startServer({ database, clock });
    let id: string;
    try {
      id = (await apiClient(first.url).post('/schedules', { cron: '0 3 * * *', inputs })).body.id as string;
    } finally {
      await first.close();
    }
    // Three ticks pass while nothing runs.
    moveToThreeOClock(clock, { days: 2, seconds: 600 });
    const second = await startServer({ database, clock });
    try {
      const api = apiClient(second.url);
      await until(async () => (await scheduledExecutions(api, id)).length === 1);
      const [late] = await scheduledExecutions(api, id);
      const status = await api.get(`/status/${late.kickoff_id as string}`);
      expect(status.body.meta.schedule).toMatchObject({ id, late: true });
      const due = new Date(status.body.meta.schedule.due_at as string);
      expect(clock.now().getTime() - due.getTime()).toBeLessThan(dayMs);

      moveToThreeOClock(clock);
      await until(async () => (await scheduledExecutions(api, id)).length === 2);
      expect(await scheduledExecutions(api, id)).toHaveLength(2);
    } finally {
      await second.close();
    }
  });

  it('lets the ticks of a paused schedule pass unstarted, and runs one now on request', async () => {
    const clock = movableClock();
    const crewd = await startServer({ database: tempDatabase(), clock });
    try {
      const api = apiClient(crewd.url);
      const id = (await api.post('/schedules', { cron: '0 3 * * *', inputs })).body.id as string;
      expect((await api.post(`/schedules/${id}/pause`)).body).toMatchObject({
        paused: true,
        next_due_at: null,
      });
      moveToThreeOClock(clock);
      await until(async () => (await api.get(`/schedules/${id}`)).body.last_due_at !== null);
      expect((await api.post(`/schedules/${id}/resume`)).body).toMatchObject({ paused: false });

      const now = await api.post(`/schedules/${id}/run`);
      expect(now.status).toBe(200);
      const status = await api.waitForState(now.body.kickoff_id as string, ['SUCCESS']);
      expect(status.body.meta.schedule).toMatchObject({ id, run_now: true });

      moveToThreeOClock(clock);
      await until(async () => (await scheduledExecutions(api, id)).length === 2);
      const started = await scheduledExecutions(api, id);
      expect(started.filter((execution) => execution.meta.schedule.run_now !== true)).toHaveLength(1);

      expect((await api.call('DELETE', `/schedules/${id}`)).status).toBe(204);
      expect((await api.get(`/schedules/${id}`)).status).toBe(404);
    } finally {
      await crewd.close();
    }
  });

  it('refuses a bad cron expression, time zone or missing inputs in the error shape, storing nothing', async () => {
    const crewd = await startServer({ database: tempDatabase(), clock: movableClock() });
    try {
      const api = apiClient(crewd.url);
      const badCron = await api.post('/schedules', { cron: '99 * * * *', inputs });
      expect(badCron.status).toBe(400);
      expect(badCron.body).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringContaining("cron '99 * * * *'"),
      });
      const badZone = await api.post('/schedules', { cron: '0 3 * * *', timezone: 'Mars/Olympus', inputs });
      expect(badZone.status).toBe(400);
      expect(badZone.body.message).toContain("timezone 'Mars/Olympus'");
      const missing = await api.post('/schedules', { cron: '0 3 * * *', inputs: {} });
      expect(missing.status).toBe(422);
      expect(missing.body).toMatchObject({ details: { missing_inputs: ['topic'] } });
      expect((await api.get('/schedules')).body).toEqual({ schedules: [] });
      expect((await apiClient(crewd.url, null).get('/schedules')).status).toBe(401);
    } finally {
      await crewd.close();
    }
  });

  it("shows a user only their own schedules, and stops a revoked token's schedule", async () => {
    const clock = movableClock();
    const database = tempDatabase();
    const crewd = await startServer({ database, clock });
    const store = await openSqliteStore(database);
    try {
      const tokens = createTokenService({ store, clock: () => new Date() });
      const aliceToken = await tokens.create({ kind: 'user', userId: 'alice' });
      const alice = apiClient(crewd.url, aliceToken.secret);
      const bob = apiClient(crewd.url, (await tokens.create({ kind: 'user', userId: 'bob' })).secret);
      const org = apiClient(crewd.url, testToken);

      const id = (await alice.post('/schedules', { cron: '0 3 * * *', inputs })).body.id as string;
      expect((await bob.get('/schedules')).body).toEqual({ schedules: [] });
      for (const response of [
        await bob.get(`/schedules/${id}`),
        await bob.post(`/schedules/${id}/pause`),
        await bob.post(`/schedules/${id}/run`),
        await bob.call('DELETE', `/schedules/${id}`),
      ]) {
        expect(response.status).toBe(404);
      }
      expect((await org.get('/schedules')).body.schedules).toHaveLength(1);

      moveToThreeOClock(clock);
      await until(async () => (await scheduledExecutions(org, id)).length === 1);
      const [started] = await scheduledExecutions(org, id);
      expect((await alice.get(`/status/${started.kickoff_id as string}`)).status).toBe(200);
      expect((await bob.get(`/status/${started.kickoff_id as string}`)).status).toBe(404);

      await tokens.revoke(aliceToken.record.id);
      const tick = moveToThreeOClock(clock);
      await until(async () => (await org.get(`/schedules/${id}`)).body.last_due_at === tick);
      expect(await scheduledExecutions(org, id)).toHaveLength(1);
    } finally {
      await crewd.close();
      await store.close();
    }
  });

  it('starts each tick once with two processes on PostgreSQL', async () => {
    const database = await createTestDatabase();
    const clock = movableClock();
    const first = await startServer({ database: database.url, clock });
    const second = await startServer({ database: database.url, clock });
    try {
      const api = apiClient(first.url);
      const id = (await api.post('/schedules', { cron: '0 3 * * *', inputs })).body.id as string;
      for (const expected of [1, 2, 3]) {
        const tick = moveToThreeOClock(clock);
        // Both processes look at the schedule: the second's view shows the tick marked.
        await until(async () => (await scheduledExecutions(api, id)).length === expected);
        await until(
          async () => (await apiClient(second.url).get(`/schedules/${id}`)).body.last_due_at === tick,
        );
      }
      expect(await scheduledExecutions(apiClient(second.url), id)).toHaveLength(3);
    } finally {
      await second.close();
      await first.close();
      await database.drop();
    }
  });

  it('are made, listed, paused, run and deleted with crewd schedules', async () => {
    const crewd = await startServer({ database: tempDatabase(), clock: movableClock() });
    try {
      const connection = ['--url', crewd.url, '--token', testToken];
      const created = await runCrewd([
        'schedules',
        'create',
        '--cron',
        '30 8 * * 1-5',
        '--timezone',
        'Europe/Paris',
        '--inputs',
        JSON.stringify(inputs),
        '--name',
        'weekday mornings',
        ...connection,
      ]);
      expect(created.code).toBe(0);
      const view = JSON.parse(created.stdout) as { id: string; timezone: string };
      expect(view).toMatchObject({ timezone: 'Europe/Paris', paused: false });

      const listed = await runCrewd(['schedules', 'list', ...connection]);
      expect(listed.stdout).toMatch(/^ID\s+NAME\s+CRON\s+TIMEZONE\s+STATE\s+NEXT\n/);
      expect(listed.stdout).toContain('weekday mornings');
      expect(
        JSON.parse((await runCrewd(['schedules', 'pause', view.id, ...connection])).stdout),
      ).toMatchObject({ paused: true });

      const run = await runCrewd(['schedules', 'run', view.id, ...connection]);
      const kickoffId = run.stdout.trim();
      const status = await apiClient(crewd.url).waitForState(kickoffId, ['SUCCESS']);
      expect(status.body.meta.schedule).toMatchObject({ id: view.id, run_now: true });

      expect((await runCrewd(['schedules', 'delete', view.id, ...connection])).code).toBe(0);
      const gone = await runCrewd(['schedules', 'pause', view.id, ...connection]);
      expect(gone.code).not.toBe(0);
      expect(gone.stderr).toContain(`Schedule ${view.id} not found`);
    } finally {
      await crewd.close();
    }
  });
});
