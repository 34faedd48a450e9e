import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { apiClient, crewsDir, startCrewd } from '../support/crewd.ts';
import { until } from '../support/until.ts';

let model: FakeOpenAIServer;
let crewd: RunningServer;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  model = await startFakeOpenAI();
  crewd = await startCrewd({ crewDir: join(crewsDir, 'plain-crew'), modelUrl: model.url });
  api = apiClient(crewd.url);
});

afterAll(async () => {
  await crewd.close();
  await model.close();
});

describe('kickoff and status', () => {
  it('answers the health check without a token', async () => {
    const response = await apiClient(crewd.url, null).get('/');
    expect(response.status).toBe(200);
    expect(response.body).toBe('Healthy');
  });

  it('lists the required inputs', async () => {
    const response = await api.get('/inputs');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ inputs: ['topic'] });
  });

  it('runs a crew to SUCCESS and reports it in the status shape clients read', async () => {
    const kickoff = await api.post('/kickoff', {
      inputs: { topic: 'tide pools' },
      meta: { requestId: 'r-1' },
    });
    expect(kickoff.status).toBe(200);
    expect(kickoff.body.kickoff_id).toMatch(/^[0-9a-f-]{36}$/);

    const status = await api.waitForState(kickoff.body.kickoff_id, ['SUCCESS', 'FAILED']);
    const body = status.body;
    expect(body.state).toBe('SUCCESS');
    expect(body.kickoff_id).toBe(kickoff.body.kickoff_id);
    expect(typeof body.result).toBe('string');
    expect(body.result).toBe(body.tasks[2].output);
    expect(body.error).toBeNull();
    expect(body.tasks.map((task: { task_id: string }) => task.task_id)).toEqual([
      'outline',
      'note',
      'summary',
    ]);
    expect(body.progress).toMatchObject({ completed: 3, total: 3, remaining: 0 });
    expect(body.pending_human_input).toBeNull();
    expect(body.usage_metrics).toEqual({
      total_tokens: 45,
      prompt_tokens: 30,
      completion_tokens: 15,
      successful_requests: 3,
      // The test model has no known price: its cost is unknown, and says so.
      total_cost_usd: null,
      unpriced_requests: 3,
    });
    expect(body.last_executed_task).toMatchObject({
      task_id: 'summary',
      kickoff_id: kickoff.body.kickoff_id,
    });
    expect(body.last_step).toMatchObject({ task_id: 'summary', tool: null });
    expect(body.meta).toEqual({ requestId: 'r-1' });

    const alias = await api.get(`/${kickoff.body.kickoff_id}/status`);
    expect(alias.status).toBe(200);
    expect(alias.body.state).toBe('SUCCESS');
    expect(alias.body.result).toBe(body.result);
  });

  it('puts the inputs into the prompts the model receives', async () => {
    const kickoff = await api.post('/kickoff', { inputs: { topic: 'lighthouses' } });
    await api.waitForState(kickoff.body.kickoff_id, ['SUCCESS']);
    const prompts = model.requests.map((request) => JSON.stringify(request.body.messages));
    expect(prompts.some((prompt) => prompt.includes('Outline a note about lighthouses.'))).toBe(true);
  });

  it('refuses a kickoff with missing inputs with 422 and the names', async () => {
    const response = await api.post('/kickoff', { inputs: {} });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({
      error: 'Validation Error',
      message: 'Missing required inputs',
      details: { missing_inputs: ['topic'] },
    });
  });

  it('refuses a body that is not JSON, and inputs that are not an object, with 400', async () => {
    const notJson = await api.post('/kickoff', '{"inputs": ', { 'content-type': 'application/json' });
    expect(notJson.status).toBe(400);
    expect(notJson.body.code).toBeTypeOf('string');
    const notObject = await api.post('/kickoff', { inputs: 'topic' });
    expect(notObject.status).toBe(400);
    expect(notObject.body.message).toMatch(/inputs/);
  });

  it('answers 404 in the error shape for an unknown execution', async () => {
    const response = await api.get('/status/00000000-0000-4000-8000-000000000000');
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ error: expect.any(String), code: 'NOT_FOUND' });
  });

  it('answers 401 for a missing or unknown token', async () => {
    for (const token of [null, 'not-a-token']) {
      const response = await apiClient(crewd.url, token).post('/kickoff', { inputs: { topic: 'x' } });
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({
        error: 'Unauthorized',
        message: 'Invalid or missing bearer token',
      });
    }
  });

  it('accepts null webhook fields as absent', async () => {
    const response = await api.post('/kickoff', {
      inputs: { topic: 'kites' },
      taskWebhookUrl: null,
      stepWebhookUrl: null,
      crewWebhookUrl: null,
    });
    expect(response.status).toBe(200);
    await api.waitForState(response.body.kickoff_id, ['SUCCESS']);
  });

  it('gives the same kickoff_id for the same Idempotency-Key and body, 422 for another body', async () => {
    const headers = { 'idempotency-key': 'order-42' };
    const first = await api.post('/kickoff', { inputs: { topic: 'owls' } }, headers);
    const again = await api.post('/kickoff', { inputs: { topic: 'owls' } }, headers);
    expect(again.status).toBe(200);
    expect(again.body.kickoff_id).toBe(first.body.kickoff_id);
    const other = await api.post('/kickoff', { inputs: { topic: 'bats' } }, headers);
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('lists executions newest first, filtered by state', async () => {
    const kickoff = await api.post('/kickoff', { inputs: { topic: 'ferns' } });
    await api.waitForState(kickoff.body.kickoff_id, ['SUCCESS']);
    const page = await api.get('/executions?state=SUCCESS&limit=2');
    expect(page.status).toBe(200);
    expect(page.body.items).toHaveLength(2);
    expect(page.body.items[0].kickoff_id).toBe(kickoff.body.kickoff_id);
    expect(page.body.items.every((item: { state: string }) => item.state === 'SUCCESS')).toBe(true);
    const next = await api.get(`/executions?state=SUCCESS&limit=2&cursor=${page.body.next_cursor}`);
    expect(next.body.items[0].kickoff_id).not.toBe(page.body.items[0].kickoff_id);
  });

  it('cancels a running execution: REVOKED, and the model call in flight is aborted', async () => {
    model.enqueue({ content: 'slow outline', delayMs: 10_000 });
    const kickoff = await api.post('/kickoff', { inputs: { topic: 'glaciers' } });
    const id = kickoff.body.kickoff_id as string;
    const aboutGlaciers = (request: { body: unknown }): boolean =>
      JSON.stringify(request.body).includes('glaciers');
    await until(() => model.requests.some(aboutGlaciers));
    const cancelled = await api.post(`/cancel/${id}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.state).toBe('REVOKED');
    // The call in flight is dropped (the server sees its client go away), and no later task asks the model.
    await until(() => model.abandoned.some(aboutGlaciers));
    const status = await api.get(`/status/${id}`);
    expect(status.body.state).toBe('REVOKED');
    expect(status.body.tasks).toHaveLength(0);
    expect(model.requests.filter(aboutGlaciers)).toHaveLength(1);
  });

  it('leaves a finished execution as it was when asked to cancel it', async () => {
    const kickoff = await api.post('/kickoff', { inputs: { topic: 'basalt' } });
    const id = kickoff.body.kickoff_id as string;
    const done = await api.waitForState(id, ['SUCCESS']);

    const cancelled = await api.post(`/cancel/${id}`);

    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ state: 'SUCCESS', result: done.body.result });
    expect((await api.get(`/status/${id}`)).body).toMatchObject({
      state: 'SUCCESS',
      result: done.body.result,
    });
  });
});
