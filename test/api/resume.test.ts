import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readJson, aliceToken, bobToken, startApi } from './support/api-harness.ts';
import type { ApiHarness } from './support/api-harness.ts';
import { makeExecution, taskOutput } from './support/example-crew.ts';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const pausedId = '7d1b4a52-3c3e-4c59-9a4e-1f0e1c2d3b4a';
const lastTaskPausedId = '8e2c5b63-4d4f-4d6a-8b5f-2a1f2d3e4c5b';

beforeEach(() => {
  api.service.put(
    makeExecution({
      id: pausedId,
      state: 'PAUSED',
      owner: { tokenId: 'alice-token', userId: 'alice' },
      outputs: [taskOutput('research', 'Findings')],
      pending: { taskId: 'review', attempt: 1, output: taskOutput('review', 'Draft review') },
      currentTask: 'review',
      webhooks: {
        taskUrl: 'https://hooks.example.com/task',
        stepUrl: null,
        crewUrl: null,
        humanInput: { url: 'https://hooks.example.com/human' },
      },
    }),
  );
  api.service.put(
    makeExecution({
      id: lastTaskPausedId,
      state: 'PAUSED',
      outputs: [taskOutput('research', 'Findings'), taskOutput('review', 'Review')],
      pending: { taskId: 'write', attempt: 2, output: taskOutput('write', 'Article', 2) },
    }),
  );
});

async function resume(body: unknown, token?: string) {
  const response = await api.request('/resume', { body, ...(token === undefined ? {} : { token }) });
  return { status: response.status, body: await readJson(response) };
}

describe('POST /resume', () => {
  it('continues a paused execution on approval', async () => {
    const { status, body } = await resume({
      execution_id: pausedId,
      task_id: 'review',
      human_feedback: 'Looks good',
      is_approve: true,
    });

    expect(status).toBe(200);
    expect(body).toEqual({ status: 'resumed', message: expect.any(String) });
    expect(api.service.resumes.at(-1)).toMatchObject({
      executionId: pausedId,
      taskId: 'review',
      feedback: 'Looks good',
      approve: true,
    });
  });

  it('answers retrying when the feedback rejects the output', async () => {
    const { body } = await resume({
      execution_id: pausedId,
      task_id: 'review',
      human_feedback: 'Add sources',
      is_approve: false,
    });

    expect(body.status).toBe('retrying');
    expect(api.service.resumes.at(-1)).toMatchObject({ feedback: 'Add sources', approve: false });
  });

  it('answers completed when the approved task was the last', async () => {
    const { body } = await resume({
      execution_id: lastTaskPausedId,
      task_id: 'write',
      human_feedback: 'Ship it',
      is_approve: true,
    });

    expect(body.status).toBe('completed');
  });

  it('accepts the camelCase field names of older clients', async () => {
    const { status } = await resume({
      executionId: pausedId,
      taskId: 'review',
      humanFeedback: 'Fine',
      isApprove: true,
    });

    expect(status).toBe(200);
    expect(api.service.resumes.at(-1)).toMatchObject({
      executionId: pausedId,
      taskId: 'review',
      feedback: 'Fine',
      approve: true,
    });
  });

  it('registers only the webhook URLs given on this request, and a new human input webhook', async () => {
    await resume({
      execution_id: pausedId,
      task_id: 'review',
      human_feedback: 'ok',
      is_approve: true,
      stepWebhookUrl: 'https://hooks.example.com/step2',
      taskWebhookUrl: null,
      humanInputWebhook: {
        url: 'https://hooks.example.com/human2',
        authentication: { strategy: 'bearer', token: 'next' },
      },
    });

    expect(api.service.resumes.at(-1)).toMatchObject({
      taskUrl: null,
      stepUrl: 'https://hooks.example.com/step2',
      crewUrl: null,
      humanInput: {
        url: 'https://hooks.example.com/human2',
        authentication: { strategy: 'bearer', token: 'next' },
      },
    });
  });

  it('accepts the older humanInputWebhookUrl string on resume too', async () => {
    await resume({
      execution_id: pausedId,
      task_id: 'review',
      human_feedback: 'ok',
      is_approve: false,
      humanInputWebhookUrl: 'https://hooks.example.com/legacy',
    });

    expect(api.service.resumes.at(-1)!.humanInput).toEqual({ url: 'https://hooks.example.com/legacy' });
  });

  it('passes no human input webhook when the request has none, so the kickoff one stays', async () => {
    await resume({ execution_id: pausedId, task_id: 'review', human_feedback: 'ok', is_approve: true });

    expect(api.service.resumes.at(-1)!.humanInput).toBeNull();
  });

  it('answers 400 when the execution is not waiting for feedback on that task', async () => {
    const { status, body } = await resume({
      execution_id: pausedId,
      task_id: 'research',
      human_feedback: 'ok',
      is_approve: true,
    });

    expect(status).toBe(400);
    expect(body).toMatchObject({
      error: 'Invalid Request',
      message: 'Execution is not in pending human input state',
      code: 'NOT_PENDING_HUMAN_INPUT',
    });
  });

  it('answers 400 for an execution that is not paused', async () => {
    api.service.put(makeExecution({ id: 'running-1', state: 'RUNNING', currentTask: 'research' }));

    const { status, body } = await resume({
      execution_id: 'running-1',
      task_id: 'review',
      human_feedback: 'ok',
      is_approve: true,
    });

    expect(status).toBe(400);
    expect(body.code).toBe('NOT_PENDING_HUMAN_INPUT');
  });

  it("answers 404 for an unknown execution and for another user's execution", async () => {
    const unknown = await resume({
      execution_id: 'nope',
      task_id: 'review',
      human_feedback: '',
      is_approve: true,
    });
    const foreign = await resume(
      { execution_id: pausedId, task_id: 'review', human_feedback: '', is_approve: true },
      bobToken,
    );
    const own = await resume(
      { execution_id: pausedId, task_id: 'review', human_feedback: '', is_approve: true },
      aliceToken,
    );

    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
    expect(foreign.status).toBe(404);
    expect(own.status).toBe(200);
  });

  it.each([
    [{ task_id: 'review', human_feedback: 'x', is_approve: true }, 'execution_id is required'],
    [{ execution_id: pausedId, human_feedback: 'x', is_approve: true }, 'task_id is required'],
    [{ execution_id: pausedId, task_id: 'review', human_feedback: 'x' }, 'is_approve is required'],
    [{ execution_id: pausedId, task_id: 'review', is_approve: true }, 'human_feedback is required'],
    [
      { execution_id: pausedId, task_id: 'review', human_feedback: 'x', is_approve: 'yes' },
      'is_approve must be a boolean',
    ],
    [
      {
        execution_id: pausedId,
        task_id: 'review',
        human_feedback: 'x',
        is_approve: true,
        crewWebhookUrl: 'not a url',
      },
      'crewWebhookUrl must be an absolute http(s) URL',
    ],
  ])('answers 400 naming the field for %j', async (body, message) => {
    const { status, body: error } = await resume(body);

    expect(status).toBe(400);
    expect(error).toMatchObject({ error: 'Invalid Request', code: 'VALIDATION_ERROR', message });
  });
});
