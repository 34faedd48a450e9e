import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { createOtlpTracing } from '../../src/observability/otlp-tracing.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { apiClient, crewsDir, startCrewd } from '../support/crewd.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.ts';
import { startScriptedReceiver, type ScriptedReceiver } from '../support/scripted-receiver.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;
let collector: OtlpReceiver;
let hooks: ScriptedReceiver;
let crewd: RunningServer;

beforeAll(async () => {
  model = await startFakeOpenAI();
  collector = await startOtlpReceiver();
  hooks = await startScriptedReceiver();
  process.env.VISIT_LOG = join(mkdtempSync(join(tmpdir(), 'crewd-visits-')), 'visits.log');
  crewd = await startCrewd({
    crewDir: userCrew(join(crewsDir, 'tool-crew')),
    modelUrl: model.url,
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'crewd-under-test',
    },
  });
});

afterAll(async () => {
  await hooks.close();
  await collector.close();
  await model.close();
});

describe('OpenTelemetry traces', { timeout: 120_000 }, () => {
  it('exports an execution span with its task, model-call and tool-call spans, the webhook attempt, and failures', async () => {
    model.enqueue(
      {
        content: 'Recording it.',
        toolCalls: [{ name: 'record_visit', arguments: { city: 'Oslo' } }],
        usage: { prompt_tokens: 11, completion_tokens: 5 },
      },
      { content: 'The visit to Oslo is recorded.', usage: { prompt_tokens: 20, completion_tokens: 7 } },
    );
    const api = apiClient(crewd.url);
    const kickoff = await api.post('/kickoff', {
      inputs: { city: 'Oslo' },
      crewWebhookUrl: `${hooks.url}/crew`,
    });
    const id = kickoff.body.kickoff_id as string;
    await api.waitForState(id, ['SUCCESS', 'FAILED']);
    await hooks.waitFor('/crew', 1);
    model.enqueue({ status: 400, errorMessage: 'provider-only detail' });
    const failing = (await api.post('/kickoff', { inputs: { city: 'Bergen' } })).body.kickoff_id as string;
    const failed = await api.waitForState(failing, ['FAILED', 'SUCCESS']);
    // Shutting down sends every span still buffered: no waiting on the batch timer.
    await crewd.close();

    const spans = collector.spans().filter((span) => span.attributes['crewd.execution.id'] === id);
    const named = (name: string): ReceivedSpan => {
      const found = spans.find((span) => span.name === name);
      if (found === undefined)
        throw new Error(`no span ${name} among ${spans.map((s) => s.name).join(', ')}`);
      return found;
    };
    const execution = named('execution tool-crew');
    const task = named('task visit');
    const calls = spans.filter((span) => span.name === 'chat test-model');
    const tool = named('execute_tool record_visit');
    const webhook = named('webhook crew');

    expect(execution.parentSpanId).toBe('');
    expect(execution.service).toBe('crewd-under-test');
    expect(execution.attributes).toMatchObject({
      'crewd.crew.name': 'tool-crew',
      'crewd.execution.state': 'SUCCESS',
    });
    expect(task).toMatchObject({ traceId: execution.traceId, parentSpanId: execution.spanId });
    expect(task.attributes).toMatchObject({
      'crewd.task.id': 'visit',
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'Traveller',
      'gen_ai.usage.input_tokens': 31,
      'gen_ai.usage.output_tokens': 12,
    });
    expect(task.events).toContain('agent final answer');

    expect(calls).toHaveLength(2);
    for (const call of calls) expect(call.parentSpanId).toBe(task.spanId);
    expect(calls.map((call) => call.attributes)).toEqual([
      expect.objectContaining({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'test-model',
        'gen_ai.usage.input_tokens': 11,
        'gen_ai.usage.output_tokens': 5,
        'gen_ai.response.finish_reasons': ['tool_calls'],
      }),
      expect.objectContaining({
        'gen_ai.usage.input_tokens': 20,
        'gen_ai.usage.output_tokens': 7,
        'gen_ai.response.finish_reasons': ['stop'],
      }),
    ]);
    expect(tool.parentSpanId).toBe(task.spanId);
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'record_visit',
      'gen_ai.tool.call.id': expect.any(String),
    });
    // The tool ran between the two model calls.
    expect(tool.startNs).toBeGreaterThanOrEqual(calls[0]!.endNs);
    expect(tool.endNs).toBeLessThanOrEqual(calls[1]!.endNs);

    const failedSpan = collector
      .spans()
      .find(
        (span) => span.name === 'execution tool-crew' && span.attributes['crewd.execution.id'] === failing,
      );
    expect(failedSpan).toMatchObject({
      statusCode: 2,
      statusMessage: failed.body.error,
      attributes: expect.objectContaining({ 'crewd.execution.state': 'FAILED' }),
    });
    const exported = collector.spans().map((span) => [span.name, span.statusMessage, span.attributes]);
    expect(JSON.stringify(exported)).not.toContain('provider-only detail');

    expect(webhook.parentSpanId).toBe('');
    expect(webhook.attributes).toMatchObject({
      'crewd.webhook.kind': 'crew',
      'crewd.webhook.outcome': 'delivered',
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
    });
  });

  it('sends OTLP protobuf unless JSON is asked for', async () => {
    const tracing = createOtlpTracing({
      url: `${hooks.url}/v1/traces`,
      protocol: 'http/protobuf',
      serviceName: 'crewd',
      scheduleDelayMs: undefined,
    });
    tracing.startSpan('execution protobuf-crew').end();
    await tracing.shutdown();

    const [request] = hooks.on('/v1/traces');
    expect(request!.headers['content-type']).toBe('application/x-protobuf');
    expect(request!.rawBody).toContain('execution protobuf-crew');
  });
});
