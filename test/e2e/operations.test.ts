import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeOpenAI,
  type FakeOpenAIServer,
  type RecordedRequest,
} from '../support/fake-openai-server.ts';
import { requestsMentioning, userText } from '../support/model-requests.ts';
import { apiClient, crewsDir, spawnCrewd, startCrewd, tempDatabase } from '../support/crewd.ts';
import { until } from '../support/until.ts';

let model: FakeOpenAIServer;
let delayFor: (request: RecordedRequest) => number = () => 0;
let holdFor: (request: RecordedRequest) => Promise<unknown> | undefined = () => undefined;

beforeAll(async () => {
  model = await startFakeOpenAI({
    respond: (request) => {
      const heldUntil = holdFor(request);
      return { content: 'An answer.', delayMs: delayFor(request), ...(heldUntil ? { heldUntil } : {}) };
    },
  });
});

afterAll(async () => {
  await model.close();
});

/**
 * Runs `use` against a server that runs one execution at a time, with two kicked off: the first (about `running`)
 * holds its first model call until `use` calls `release`, so the second (about `queued`) waits as PENDING.
 */
async function withOneRunningOneQueued(
  topics: { running: string; queued: string },
  use: (
    api: ReturnType<typeof apiClient>,
    ids: { running: string; queued: string },
    release: () => void,
  ) => Promise<void>,
): Promise<void> {
  let release = (): void => {};
  const held = new Promise<void>((done) => (release = done));
  holdFor = (request) => (userText(request).includes(topics.running) ? held : undefined);
  const crewd = await startCrewd({
    crewDir: join(crewsDir, 'plain-crew'),
    modelUrl: model.url,
    env: { CREWD_CONCURRENCY: '1' },
  });
  try {
    const api = apiClient(crewd.url);
    const running = await api.post('/kickoff', { inputs: { topic: topics.running } });
    const queued = await api.post('/kickoff', { inputs: { topic: topics.queued } });
    await until(() => requestsMentioning(model, topics.running).length === 1);
    await use(api, { running: running.body.kickoff_id, queued: queued.body.kickoff_id }, release);
  } finally {
    release();
    holdFor = () => undefined;
    await crewd.close();
  }
}

describe('operating crewd', () => {
  it('keeps executions beyond CREWD_CONCURRENCY waiting as PENDING, then runs them', async () => {
    await withOneRunningOneQueued({ running: 'moss', queued: 'lichen' }, async (api, ids, release) => {
      expect((await api.get(`/status/${ids.running}`)).body.state).toBe('RUNNING');
      expect((await api.get(`/status/${ids.queued}`)).body.state).toBe('PENDING');
      expect(requestsMentioning(model, 'lichen')).toHaveLength(0);

      release();
      await api.waitForState(ids.queued, ['SUCCESS']);
      expect((await api.get(`/status/${ids.running}`)).body.state).toBe('SUCCESS');
    });
  });

  it('cancels an execution still waiting as PENDING: it never runs', async () => {
    await withOneRunningOneQueued({ running: 'pumice', queued: 'obsidian' }, async (api, ids, release) => {
      const cancelled = await api.post(`/cancel/${ids.queued}`);
      expect(cancelled.body).toMatchObject({ state: 'REVOKED' });
      release();
      await api.waitForState(ids.running, ['SUCCESS']);

      expect((await api.get(`/status/${ids.queued}`)).body).toMatchObject({ state: 'REVOKED', tasks: [] });
      expect(requestsMentioning(model, 'obsidian')).toHaveLength(0);
    });
  });

  it('reports health and Prometheus metrics', async () => {
    const crewd = await startCrewd({ crewDir: join(crewsDir, 'plain-crew'), modelUrl: model.url });
    try {
      const anonymous = apiClient(crewd.url, null);
      expect((await anonymous.get('/health/live')).status).toBe(200);
      expect((await anonymous.get('/health/ready')).status).toBe(200);
      const api = apiClient(crewd.url);
      const kickoff = await api.post('/kickoff', { inputs: { topic: 'dunes' } });
      await api.waitForState(kickoff.body.kickoff_id, ['SUCCESS']);
      const metrics = await api.get('/metrics');
      expect(metrics.status).toBe(200);
      expect(metrics.body).toMatch(/crewd_executions\{state="SUCCESS"\} 1/);
      expect(metrics.body).toMatch(/crewd_model_tokens_total\{[^}]*\} \d+/);
      expect(metrics.body).toMatch(/crewd_task_duration_seconds_count \d+/);
      expect(metrics.body).toMatch(/crewd_http_requests_total\{[^}]*route="\/kickoff"[^}]*\} 1/);
    } finally {
      await crewd.close();
    }
  });

  it('on SIGTERM lets the running model call finish, exits 0, and the rest runs after a restart', async () => {
    const database = tempDatabase();
    const options = { crewDir: join(crewsDir, 'plain-crew'), database, modelUrl: model.url };
    delayFor = (request) => (userText(request).includes('Write the note about reefs') ? 1500 : 0);
    const first = await spawnCrewd(options);
    const kickoff = await apiClient(first.url).post('/kickoff', { inputs: { topic: 'reefs' } });
    await until(() => requestsMentioning(model, 'Write the note about reefs').length === 1);
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    delayFor = () => 0;

    // The first released its lease on the way out, so the second goes on at once, well before the default lease
    // of 30 s would have run out.
    const second = await spawnCrewd(options);
    try {
      const done = await apiClient(second.url).waitForState(kickoff.body.kickoff_id, ['SUCCESS', 'FAILED']);
      expect(done.body.state).toBe('SUCCESS');
      // The call in flight at SIGTERM finished and was saved, so the note was never asked for twice.
      expect(requestsMentioning(model, 'Write the note about reefs')).toHaveLength(1);
    } finally {
      second.child.kill('SIGKILL');
      await second.exited;
    }
  });

  it('on SIGTERM stops a model call that outlasts CREWD_SHUTDOWN_GRACE_MS; the next process runs that task at once', async () => {
    const database = tempDatabase();
    const options = { crewDir: join(crewsDir, 'plain-crew'), database, modelUrl: model.url };
    // Held for good: only the grace running out lets the first process exit.
    let release = (): void => {};
    const held = new Promise<void>((done) => (release = done));
    holdFor = (request) => (userText(request).includes('Write the note about tides') ? held : undefined);
    const first = await spawnCrewd({ ...options, env: { CREWD_SHUTDOWN_GRACE_MS: '300' } });
    try {
      const kickoff = await apiClient(first.url).post('/kickoff', { inputs: { topic: 'tides' } });
      await until(() => requestsMentioning(model, 'Write the note about tides').length === 1);
      first.child.kill('SIGTERM');
      expect((await first.exited).code).toBe(0);
      // The call was dropped, not answered: the execution stays RUNNING with its saved first task.
      await until(
        () => model.abandoned.filter((request) => userText(request).includes('about tides')).length === 1,
      );
      holdFor = () => undefined;

      // The lease was released on the way out, so the second process goes on before the 30 s lease would end.
      const second = await spawnCrewd(options);
      try {
        const api = apiClient(second.url);
        const done = await api.waitForState(kickoff.body.kickoff_id, ['SUCCESS', 'FAILED']);
        expect(done.body.state).toBe('SUCCESS');
        expect(requestsMentioning(model, 'Write the note about tides')).toHaveLength(2);
        expect(requestsMentioning(model, 'Outline a note about tides')).toHaveLength(1);
      } finally {
        second.child.kill('SIGKILL');
        await second.exited;
      }
    } finally {
      release();
      holdFor = () => undefined;
      first.child.kill('SIGKILL');
    }
  });
});
