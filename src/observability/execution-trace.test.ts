import { describe, expect, it } from 'vitest';
import type { GuardrailCheck } from '../domain/events.ts';
import { ExecutionTrace } from './execution-trace.ts';
import type { SpanAttributes, SpanOptions, TraceSpan, Tracing } from './tracing.ts';

interface RecordedSpan {
  readonly name: string;
  readonly parent: RecordedSpan | undefined;
  attributes: Record<string, unknown>;
  ended: boolean;
}

function recordingTracing(): { tracing: Tracing; spans: RecordedSpan[] } {
  const spans: RecordedSpan[] = [];
  const handles = new Map<TraceSpan, RecordedSpan>();
  const tracing: Tracing = {
    startSpan(name: string, options?: SpanOptions): TraceSpan {
      const span: RecordedSpan = {
        name,
        parent: options?.parent === undefined ? undefined : handles.get(options.parent),
        attributes: { ...options?.attributes },
        ended: false,
      };
      spans.push(span);
      const handle: TraceSpan = {
        setAttributes: (attributes: SpanAttributes) => Object.assign(span.attributes, attributes),
        addEvent: () => undefined,
        fail: () => undefined,
        end: () => {
          span.ended = true;
        },
      };
      handles.set(handle, span);
      return handle;
    },
    shutdown: () => Promise.resolve(),
  };
  return { tracing, spans };
}

describe('ExecutionTrace', () => {
  it('records each guardrail check as a span under its task, with whether it passed', () => {
    const { tracing, spans } = recordingTracing();
    const trace = new ExecutionTrace(tracing, { id: 'e1', crew: 'crew' });
    const check: GuardrailCheck = {
      taskId: 'write',
      attempt: 1,
      agent: 'Writer',
      guardrailType: 'function',
      guardrail: 'no_shouting',
      retryCount: 0,
    };
    trace.record({ type: 'task-start', taskId: 'write', attempt: 1, agent: 'Writer' });
    trace.record({ type: 'guardrail-start', check });
    trace.record({ type: 'guardrail-end', check, success: false, error: 'too loud' });
    trace.record({ type: 'guardrail-start', check: { ...check, retryCount: 1 } });
    trace.record({ type: 'guardrail-end', check: { ...check, retryCount: 1 }, success: true, error: null });

    const checks = spans.filter((span) => span.name === 'guardrail function');
    expect(checks.map((span) => [span.parent?.name, span.attributes['crewd.guardrail.retry_count']])).toEqual(
      [
        ['task write', 0],
        ['task write', 1],
      ],
    );
    expect(checks.map((span) => span.attributes['crewd.guardrail.success'])).toEqual([false, true]);
    expect(checks.every((span) => span.ended && span.attributes['crewd.guardrail'] === 'no_shouting')).toBe(
      true,
    );
  });
  it('puts the cost of a priced call on its span, and marks a call without a known price', () => {
    const { tracing, spans } = recordingTracing();
    const trace = new ExecutionTrace(tracing, { id: 'e1', crew: 'crew' });
    const call = {
      type: 'model-call-end' as const,
      taskId: 'write',
      attempt: 1,
      answer: { text: 'done', toolCalls: [] },
      durationMs: 5,
    };
    trace.record({ type: 'task-start', taskId: 'write', attempt: 1, agent: 'Writer' });
    const usage = { promptTokens: 100, completionTokens: 10, totalTokens: 110, successfulRequests: 1 };
    trace.record({ ...call, model: 'openai/gpt-4o', usage: { ...usage, costUsd: 0.00035 } });
    trace.record({ ...call, model: 'openai/local-model', usage: { ...usage, unpricedRequests: 1 } });

    const [priced, unpriced] = spans.filter((span) => span.name.startsWith('chat '));
    expect(priced?.attributes).toMatchObject({ 'crewd.usage.cost_usd': 0.00035 });
    expect(priced?.attributes).not.toHaveProperty('crewd.usage.unpriced_requests');
    expect(unpriced?.attributes).toMatchObject({ 'crewd.usage.unpriced_requests': 1 });
    expect(unpriced?.attributes).not.toHaveProperty('crewd.usage.cost_usd');
  });
});
