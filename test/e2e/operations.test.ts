import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeOpenAI,
  type FakeOpenAIServer,
  type RecordedRequest,
} from '../support/fake-openai-server.ts';
import { requestsMentioning, userText } from '../support/model-requests.ts';
import { apiClient, crewsDir, spawnCrewd, startCrewd, tempDatabase } from '../support/crewd.ts';

let model: FakeOpenAIServer;
let delayFor: (request: RecordedRequest) => number = () => 0;

beforeAll(async () => {
  model = await startFakeOpenAI({
    respond: (request) => ({ content: 'An answer.', delayMs: delayFor(request) }),
  });
});

afterAll(async () => {
  await model.close();
});

describe('operating crewd', () => {
  it('keeps executions beyond CREWD_CONCURRENCY waiting as PENDING, then runs them', async () => {
    delayFor = () => 300;
    const crewd = await startCrewd({
      crewDir: join(crewsDir, 'plain-crew'),
      modelUrl: model.url,
      env: { CREWD_CONCURRENCY: '1' },
    });
    try {
      const api = apiClient(crewd.url);
      const first = await api.post('/kickoff', { inputs: { topic: 'moss' } });
      const second = await api.post('/kickoff', { inputs: { topic: 'lichen' } });
      await api.waitForState(first.body.kickoff_id, ['RUNNING']);
      expect((await api.get(`/status/${second.body.kickoff_id}`)).body.state).toBe('PENDING');
      await api.waitForState(second.body.kickoff_id, ['SUCCESS']);
      expect((await api.get(`/status/${first.body.kickoff_id}`)).body.state).toBe('SUCCESS');
    } finally {
      delayFor = () => 0;
      await crewd.close();
    }
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
    const deadline = Date.now() + 20_000;
    while (requestsMentioning(model, 'Write the note about reefs').length === 0 && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 20));
    }
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
});
