import type { ExecutionLogData } from '../domain/execution-log.ts';
import { describe, expect, it } from 'vitest';
import type { GuardrailCheck } from '../domain/events.ts';
import { eventRecord } from './event-records.ts';
import { toStreamEvents } from './stream-events.ts';

const context = { crewName: 'crew-x', inputs: { topic: 'tides' }, firstStart: false, totalTokens: 42 };

describe('toStreamEvents', () => {
  it('names a tool step tool_usage_finished with its arguments and output', () => {
    const events = toStreamEvents(
      {
        type: 'step-end',
        data: {
          task_id: 'search',
          agent: 'Researcher',
          tool: 'lookup',
          tool_input: { q: 'tides' },
          result: '3 hits',
          kickoff_id: 'k',
          prompt: 'Search',
          thought: 'Looking it up',
          meta: null,
        },
      },
      context,
    );

    expect(events).toEqual([
      {
        type: 'tool_usage_finished',
        data: {
          task_id: 'search',
          task_name: 'search',
          agent_role: 'Researcher',
          tool_name: 'lookup',
          tool_args: { q: 'tides' },
          output: '3 hits',
        },
      },
    ]);
  });

  it("names guardrail checks with crewAI's llm_guardrail_started and llm_guardrail_completed", () => {
    const check: GuardrailCheck = {
      taskId: 'write',
      attempt: 1,
      agent: 'Writer',
      guardrailType: 'llm',
      guardrail: 'Be kind',
      retryCount: 2,
    };
    const fields = {
      task_id: 'write',
      task_name: 'write',
      agent_role: 'Writer',
      guardrail: 'Be kind',
      guardrail_type: 'llm',
      guardrail_name: 'Be kind',
      retry_count: 2,
    };

    const started = toStreamEvents(eventRecord.guardrailStarted({ type: 'guardrail-start', check }), context);
    const ended = toStreamEvents(
      eventRecord.guardrailEnded({ type: 'guardrail-end', check, success: false, error: 'Unkind' }),
      context,
    );

    expect(started).toEqual([{ type: 'llm_guardrail_started', data: fields }]);
    expect(ended).toEqual([
      { type: 'llm_guardrail_completed', data: { ...fields, success: false, error: 'Unkind' } },
    ]);
  });

  it('ends a failed or cancelled execution with crew_kickoff_failed and a successful one with its tokens', () => {
    const ended = (data: ExecutionLogData<'execution-end'>) =>
      toStreamEvents({ type: 'execution-end', data }, context);

    expect(ended({ state: 'FAILED', result: null, error: "Task 'a' failed: timeout" })).toEqual([
      { type: 'crew_kickoff_failed', data: { crew_name: 'crew-x', error: "Task 'a' failed: timeout" } },
    ]);
    expect(ended({ state: 'REVOKED', result: null, error: null })).toEqual([
      { type: 'crew_kickoff_failed', data: { crew_name: 'crew-x', error: 'The execution was cancelled' } },
    ]);
    expect(ended({ state: 'SUCCESS', result: 'Done', error: null })).toEqual([
      { type: 'crew_kickoff_completed', data: { crew_name: 'crew-x', output: 'Done', total_tokens: 42 } },
    ]);
  });

  it('announces the kickoff only on the first start, and nothing for pauses and resumes', () => {
    const start = { type: 'execution-start', data: { state: 'RUNNING' } } as const;

    expect(toStreamEvents(start, context)).toEqual([]);
    expect(toStreamEvents(start, { ...context, firstStart: true })).toEqual([
      { type: 'crew_kickoff_started', data: { crew_name: 'crew-x', inputs: { topic: 'tides' } } },
    ]);
    const review = { task_id: 'review', attempt: 1 };
    expect(
      toStreamEvents({ type: 'human-input-request', data: { ...review, output: 'Draft' } }, context),
    ).toEqual([]);
    expect(
      toStreamEvents({ type: 'execution-resume', data: { ...review, is_approve: true } }, context),
    ).toEqual([]);
  });
});
