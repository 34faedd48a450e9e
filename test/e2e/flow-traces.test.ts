import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeOpenAI } from '../support/fake-openai-server.ts';
import { apiClient, startCrewd } from '../support/crewd.ts';
import { startOtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.ts';
import { userCrew } from '../support/user-crew.ts';

describe("a served flow's trace", () => {
  it('has a span for each method in each leg, beside the spans of the model calls its agents make', async () => {
    const model = await startFakeOpenAI({ respond: () => ({ content: 'A draft about kettles.' }) });
    const collector = await startOtlpReceiver();
    const crewd = await startCrewd({
      crewDir: userCrew(join(import.meta.dirname, 'flows', 'review-flow')),
      modelUrl: model.url,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
    });
    try {
      const api = apiClient(crewd.url);
      const id = (await api.post('/kickoff', { inputs: { topic: 'kettles' } })).body.kickoff_id as string;
      await api.waitForState(id, ['PAUSED']);
      await api.post('/resume', {
        execution_id: id,
        task_id: 'review',
        human_feedback: 'approved',
        is_approve: true,
      });
      await api.waitForState(id, ['SUCCESS', 'FAILED']);
    } finally {
      // Shutting down sends every span still buffered.
      await crewd.close();
      await model.close();
    }
    const spans = collector.spans();
    await collector.close();
    const methods = spans.filter((span) => span.name.startsWith('method '));
    // Each leg is a trace of its own: the review runs to its pause in the first, and ends in the second once answered.
    expect(methods.map((span) => span.name).sort()).toEqual([
      'method draft',
      'method publish',
      'method review',
      'method review',
    ]);
    const reviews = methods.filter((span) => span.name === 'method review');
    expect(new Set(reviews.map((span) => span.parentSpanId)).size).toBe(2);
    const executions = new Map(
      spans.filter((span) => span.name === 'execution ReviewFlow').map((s) => [s.spanId, s]),
    );
    for (const span of methods) {
      expect(executions.has(span.parentSpanId), span.name).toBe(true);
      expect(span.attributes['crewd.flow.method']).toBe(span.name.slice('method '.length));
    }
    expect(spans.some((span: ReceivedSpan) => span.name.startsWith('chat '))).toBe(true);
  });
});
