import { describe, expect, it } from 'vitest';
import { Metrics } from './metrics.ts';

describe('Metrics', () => {
  it('keeps each instance in its own registry', async () => {
    const first = new Metrics();
    const second = new Metrics();

    first.observeTask(1);

    expect(await first.render()).toContain('crewd_task_duration_seconds_count 1');
    expect(await second.render()).toContain('crewd_task_duration_seconds_count 0');
  });

  it('reads execution counts and failed deliveries at scrape time', async () => {
    let succeeded = 1;
    const metrics = new Metrics({
      countByState: () =>
        Promise.resolve({ PENDING: 0, RUNNING: 0, PAUSED: 1, SUCCESS: succeeded, FAILED: 0, REVOKED: 0 }),
      countFailedDeliveries: () => Promise.resolve(2),
    });

    expect(await metrics.render()).toContain('crewd_executions{state="SUCCESS"} 1');
    succeeded = 7;
    const text = await metrics.render();

    expect(text).toContain('crewd_executions{state="SUCCESS"} 7');
    expect(text).toContain('crewd_executions{state="PAUSED"} 1');
    expect(text).toContain('crewd_webhook_deliveries_failed 2');
  });

  it('reports the queue depth (PENDING executions) from one count per scrape', async () => {
    let counts = 0;
    const metrics = new Metrics({
      countByState: () => {
        counts += 1;
        return Promise.resolve({ PENDING: 12, RUNNING: 3, PAUSED: 0, SUCCESS: 0, FAILED: 0, REVOKED: 0 });
      },
    });

    const text = await metrics.render();

    expect(text).toContain('crewd_queue_depth 12');
    expect(text).toContain('crewd_executions{state="PENDING"} 12');
    expect(counts).toBe(1);
  });

  it('counts store errors by kind, every kind shown from the start', async () => {
    const metrics = new Metrics();
    metrics.observeStoreError('unreachable');
    metrics.observeStoreError('unreachable');
    metrics.observeStoreError('disk-full');

    const text = await metrics.render();

    expect(text).toContain('crewd_store_errors_total{kind="unreachable"} 2');
    expect(text).toContain('crewd_store_errors_total{kind="disk-full"} 1');
    expect(text).toContain('crewd_store_errors_total{kind="read-only"} 0');
    expect(text).toContain('crewd_store_errors_total{kind="rejected"} 0');
  });

  it('still renders when the store cannot be counted', async () => {
    const metrics = new Metrics({
      countByState: () => Promise.reject(new Error('store down')),
      countFailedDeliveries: () => Promise.reject(new Error('store down')),
    });
    metrics.observeHttpRequest('GET', '/inputs', 200, 0.01);

    const text = await metrics.render();

    expect(text).toContain('crewd_http_requests_total{method="GET",route="/inputs",status="200"} 1');
  });

  it('counts prompt and completion tokens per model', async () => {
    const metrics = new Metrics();
    const usage = { promptTokens: 10, completionTokens: 4, totalTokens: 14, successfulRequests: 1 };

    metrics.observeModelCall('anthropic/claude', 1.2, usage);
    metrics.observeModelCall('anthropic/claude', 0.3, usage);
    const text = await metrics.render();

    expect(text).toContain('crewd_model_tokens_total{model="anthropic/claude",kind="prompt"} 20');
    expect(text).toContain('crewd_model_tokens_total{model="anthropic/claude",kind="completion"} 8');
    expect(text).toContain('crewd_model_call_duration_seconds_count{model="anthropic/claude"} 2');
  });

  it('adds process metrics when asked', async () => {
    const metrics = new Metrics({}, { processMetrics: true });

    expect(await metrics.render()).toContain('crewd_process_resident_memory_bytes');
  });
});
