import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metrics } from '../../src/observability/metrics.ts';
import { readJson, startApi } from './support/api-harness.ts';
import type { ApiHarness } from './support/api-harness.ts';
import { makeExecution } from './support/example-crew.ts';
import { SseReader } from './support/sse-reader.ts';

let api: ApiHarness;
beforeAll(async () => {
  const metrics = new Metrics({
    countByState: () =>
      Promise.resolve({ PENDING: 1, RUNNING: 2, PAUSED: 0, SUCCESS: 5, FAILED: 1, REVOKED: 0 }),
    countFailedDeliveries: () => Promise.resolve(4),
  });
  api = await startApi({ metrics });
});
afterAll(() => api.close());

describe('health', () => {
  it('answers Healthy as text on /', async () => {
    const response = await api.request('/', { token: null });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await response.text()).toBe('Healthy');
  });

  it('is live and ready while the store answers', async () => {
    expect(await (await api.request('/health/live', { token: null })).json()).toEqual({ status: 'ok' });
    expect(await (await api.request('/health/ready', { token: null })).json()).toEqual({
      status: 'ok',
      tools: [],
    });
  });

  it('is not ready (503) when the store check fails or hangs, and stays live', async () => {
    const failing = await startApi({ ready: () => Promise.reject(new Error('ECONNREFUSED 10.1.2.3:5432')) });
    const hanging = await startApi({ ready: () => new Promise<void>(() => {}), readyTimeoutMs: 100 });
    try {
      const refused = await failing.request('/health/ready', { token: null });
      const slow = await hanging.request('/health/ready', { token: null });

      expect(refused.status).toBe(503);
      const body = await refused.json();
      expect(body).toMatchObject({ error: 'Service Unavailable', code: 'DEPENDENCY_UNAVAILABLE' });
      expect(JSON.stringify(body)).not.toContain('10.1.2.3');
      expect(slow.status).toBe(503);
      expect((await failing.request('/health/live', { token: null })).status).toBe(200);
    } finally {
      await Promise.all([failing.close(), hanging.close()]);
    }
  });
});

describe('GET /metrics', () => {
  it('exposes request, execution, task, model, token and webhook metrics', async () => {
    await api.request('/status/unknown-id');
    api.metrics.observeTask(2.5);
    api.metrics.observeModelCall('openai/gpt-4o-mini', 0.8, {
      promptTokens: 100,
      completionTokens: 20,
      totalTokens: 120,
      successfulRequests: 1,
    });

    const response = await api.request('/metrics');
    const text = await response.text();

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(text).toContain(
      'crewd_http_requests_total{method="GET",route="/status/:kickoffId",status="404"} 1',
    );
    expect(text).toContain('crewd_http_request_duration_seconds_bucket');
    expect(text).toContain('crewd_executions{state="SUCCESS"} 5');
    expect(text).toContain('crewd_executions{state="RUNNING"} 2');
    expect(text).toContain('crewd_task_duration_seconds_count 1');
    expect(text).toContain('crewd_model_call_duration_seconds_count{model="openai/gpt-4o-mini"} 1');
    expect(text).toContain('crewd_model_tokens_total{model="openai/gpt-4o-mini",kind="prompt"} 100');
    expect(text).toContain('crewd_model_tokens_total{model="openai/gpt-4o-mini",kind="completion"} 20');
    expect(text).toContain('crewd_webhook_deliveries_failed 4');
  });
});

describe('API description', () => {
  it('lists every route in /openapi.json with the request schemas that validate them', async () => {
    const response = await api.request('/openapi.json', { token: null });
    const document = await readJson(response);

    expect(response.status).toBe(200);
    expect(document.openapi).toMatch(/^3\./);
    expect(Object.keys(document.paths).sort()).toEqual(
      [
        '/',
        '/inputs',
        '/kickoff',
        '/status/{kickoffId}',
        '/{kickoffId}/status',
        '/resume',
        '/cancel/{kickoffId}',
        '/stop/{kickoffId}',
        '/executions',
        '/executions/{id}/events',
        '/executions/{id}/deliveries',
        '/executions/{id}',
        '/crew',
        '/metrics',
        '/health/live',
        '/health/ready',
      ].sort(),
    );
    const kickoff = document.paths['/kickoff'].post;
    const kickoffBody = kickoff.requestBody.content['application/json'].schema;
    expect(kickoffBody.required).toEqual(['inputs']);
    expect(Object.keys(kickoffBody.properties)).toEqual(
      expect.arrayContaining([
        'inputs',
        'meta',
        'taskWebhookUrl',
        'humanInputWebhook',
        'humanInputWebhookUrl',
      ]),
    );
    expect(kickoff.security).toEqual([{ bearerAuth: [] }]);
    const resumeBody = document.paths['/resume'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(resumeBody.properties)).toEqual(
      expect.arrayContaining([
        'execution_id',
        'task_id',
        'human_feedback',
        'is_approve',
        'executionId',
        'isApprove',
      ]),
    );
    // The error answers are described too, each with the one error body.
    expect(Object.keys(kickoff.responses).sort()).toEqual(
      ['200', '400', '401', '404', '413', '422', '429', '500', '503'].sort(),
    );
    const notFound = document.paths['/status/{kickoffId}'].get.responses['404'];
    expect(notFound.description).toMatch(/No such execution/);
    expect(Object.keys(notFound.content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['error', 'message', 'code']),
    );
    expect(Object.keys(document.paths['/status/{kickoffId}'].get.responses)).not.toContain('413');
    expect(Object.keys(document.paths['/health/live'].get.responses).sort()).toEqual(['200', '500', '503']);
    const statusResponse = document.paths['/status/{kickoffId}'].get.responses['200'];
    expect(Object.keys(statusResponse.content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining([
        'kickoff_id',
        'state',
        'status',
        'result',
        'pending_human_input',
        'usage_metrics',
      ]),
    );
    const listParameters = document.paths['/executions'].get.parameters.map(
      (parameter: { name: string }) => parameter.name,
    );
    expect(listParameters).toEqual(expect.arrayContaining(['state', 'limit', 'cursor']));
    expect(document.components.securitySchemes.bearerAuth).toEqual({ type: 'http', scheme: 'bearer' });
  });

  it('serves the documentation page at /docs', async () => {
    const response = await api.request('/docs', { token: null });

    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<html');
  });
});

describe('shutdown', () => {
  it('closes promptly while an event stream is open', async () => {
    const server = await startApi({ heartbeatMs: 1000 });
    server.service.put(makeExecution({ id: 'open-stream', state: 'RUNNING' }));
    const response = await server.request('/executions/open-stream/events');
    const reader = new SseReader(response);
    await reader.next();

    // A close that waited for the stream would wait for the client: the test's time limit would end it.
    await server.close();

    expect(await reader.rest()).toEqual([]);
  });
});
