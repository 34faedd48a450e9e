import { describe, expect, it } from 'vitest';
import { CrewdError } from '../domain/errors.ts';
import type { TaskOutput } from '../domain/task-output.ts';
import {
  crewPayloadSchema,
  humanInputPayloadSchema,
  stepPayloadSchema,
  taskPayloadSchema,
} from '../domain/webhook-payloads.ts';
import {
  assertCredentialsSafe,
  crewPayload,
  humanInputHeaders,
  humanInputPayload,
  stepPayload,
  taskPayload,
} from './payloads.ts';

const meta = { requestId: 'req-1', source: 'tests' };

const output: TaskOutput = {
  taskId: 'research_task',
  description: 'Research AI',
  expectedOutput: 'Ten bullet points',
  summary: 'AI is moving fast...',
  agent: 'Researcher',
  output: 'AI is moving fast.',
  outputJson: { points: 10 },
  usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15, successfulRequests: 1 },
  attempt: 2,
};

describe('webhook payloads', () => {
  it('builds the task payload with exactly the contract keys', () => {
    const payload = taskPayload('kick-1', output, 'research_task', meta);
    expect(payload).toEqual({
      kickoff_id: 'kick-1',
      task_id: 'research_task',
      name: 'research_task',
      description: 'Research AI',
      expected_output: 'Ten bullet points',
      summary: 'AI is moving fast...',
      agent: 'Researcher',
      output: 'AI is moving fast.',
      output_json: { points: 10 },
      meta,
    });
    expect(taskPayloadSchema.strict().parse(payload)).toEqual(payload);
  });

  it('builds the step payload for a tool call and for a final answer', () => {
    const toolStep = stepPayload(
      'kick-1',
      {
        taskId: 'research_task',
        agent: 'Researcher',
        prompt: 'Research AI',
        thought: 'I should search',
        tool: 'search',
        toolInput: { query: 'AI' },
        result: 'three results',
      },
      meta,
    );
    expect(toolStep).toEqual({
      kickoff_id: 'kick-1',
      task_id: 'research_task',
      agent: 'Researcher',
      prompt: 'Research AI',
      thought: 'I should search',
      tool: 'search',
      tool_input: { query: 'AI' },
      result: 'three results',
      meta,
    });
    const answer = stepPayload(
      'kick-1',
      {
        ...{ taskId: 't', agent: 'a', prompt: 'p', thought: 'done', result: 'done' },
        tool: null,
        toolInput: undefined,
      },
      null,
    );
    expect(answer).toMatchObject({ tool: null, tool_input: null, meta: null });
    expect(stepPayloadSchema.strict().parse(toolStep)).toEqual(toolStep);
  });

  it('builds the crew payload for success and for failure', () => {
    const usage = { promptTokens: 100, completionTokens: 20, totalTokens: 120, successfulRequests: 3 };
    const success = crewPayload({
      kickoffId: 'kick-1',
      state: 'SUCCESS',
      result: 'final',
      resultJson: null,
      error: null,
      usage,
      meta,
    });
    expect(success).toEqual({
      kickoff_id: 'kick-1',
      state: 'SUCCESS',
      result: 'final',
      result_json: null,
      error: null,
      token_usage: { total_tokens: 120, prompt_tokens: 100, completion_tokens: 20 },
      meta,
    });
    const failure = crewPayload({
      kickoffId: 'kick-1',
      state: 'FAILED',
      result: 'Task research_task failed',
      resultJson: null,
      error: 'Task research_task failed',
      usage,
      meta: null,
    });
    expect(failure).toMatchObject({ state: 'FAILED', error: 'Task research_task failed', meta: null });
    expect(crewPayloadSchema.strict().parse(failure)).toEqual(failure);
  });

  it('builds the human-input payload with the kickoff id as execution id', () => {
    const payload = humanInputPayload('kick-1', output, 'research_task', 'Researcher', 2, meta);
    expect(payload).toEqual({
      event: 'human_input_requested',
      execution_id: 'kick-1',
      kickoff_id: 'kick-1',
      task_id: 'research_task',
      task_name: 'research_task',
      agent: 'Researcher',
      output: 'AI is moving fast.',
      attempt: 2,
      meta,
    });
    expect(humanInputPayloadSchema.strict().parse(payload)).toEqual(payload);
  });
});

describe('human-input credentials', () => {
  it('makes bearer and basic Authorization headers, and none without authentication', () => {
    expect(humanInputHeaders({ strategy: 'bearer', token: 'abc.def' })).toEqual({
      authorization: 'Bearer abc.def',
    });
    expect(humanInputHeaders({ strategy: 'basic', username: 'ann', password: 's3cret' })).toEqual({
      authorization: `Basic ${Buffer.from('ann:s3cret').toString('base64')}`,
    });
    expect(humanInputHeaders(undefined)).toEqual({});
  });

  it.each([
    ['a bearer token with CR/LF', { strategy: 'bearer', token: 'abc\r\nX-Evil: 1' }, 'token'],
    ['a bearer token with a NUL', { strategy: 'bearer', token: 'abc\u0000' }, 'token'],
    ['a bearer token with a tab', { strategy: 'bearer', token: 'abc\tdef' }, 'token'],
    ['a bearer token outside ASCII', { strategy: 'bearer', token: 'tökén' }, 'token'],
    ['an empty bearer token', { strategy: 'bearer', token: '' }, 'token'],
    ['a username with LF', { strategy: 'basic', username: 'ann\n', password: 'x' }, 'username'],
    ['a password with CR', { strategy: 'basic', username: 'ann', password: 'x\ry' }, 'password'],
    ['a password with DEL', { strategy: 'basic', username: 'ann', password: 'x\u007f' }, 'password'],
    ['a password with a C1 control', { strategy: 'basic', username: 'ann', password: 'x\u0085' }, 'password'],
  ] as const)('refuses %s with a validation error naming the field, not the value', (_name, auth, field) => {
    let thrown: unknown;
    try {
      assertCredentialsSafe(auth);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(CrewdError);
    const error = thrown as CrewdError;
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain(`humanInputWebhook.authentication.${field}`);
    expect(error.message).not.toContain('X-Evil');
    expect(() => humanInputHeaders(auth)).toThrow(CrewdError);
  });

  it('accepts basic credentials with spaces, colons in the password and letters outside ASCII', () => {
    expect(() =>
      assertCredentialsSafe({ strategy: 'basic', username: 'Zoë Ann', password: 'pa:ss wörd' }),
    ).not.toThrow();
    expect(() => assertCredentialsSafe({ strategy: 'basic', username: 'ann', password: '' })).not.toThrow();
  });
});
