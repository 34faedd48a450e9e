import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aliceToken, bobToken, readJson, startApi } from './support/api-harness.ts';
import type { ApiHarness } from './support/api-harness.ts';
import { makeExecution, taskOutput } from './support/example-crew.ts';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const started = new Date('2025-01-01T10:00:01.000Z');

describe('GET /status/{kickoff_id}', () => {
  it('shows a paused execution as Pending Human Input with the output awaiting feedback', async () => {
    api.service.put(
      makeExecution({
        id: 'paused-1',
        state: 'PAUSED',
        meta: { requestId: 'r-9' },
        owner: { tokenId: 'alice-token', userId: 'alice' },
        webhooks: {
          taskUrl: 'https://user:hunter2@hooks.example.com/task',
          stepUrl: null,
          crewUrl: null,
          humanInput: {
            url: 'https://h.example.com',
            authentication: { strategy: 'bearer', token: 'hook-secret' },
          },
        },
        outputs: [taskOutput('research', 'Findings about AI')],
        pending: { taskId: 'review', attempt: 2, output: taskOutput('review', 'Second draft', 2) },
        currentTask: 'review',
        usage: { promptTokens: 30, completionTokens: 12, totalTokens: 42, successfulRequests: 3 },
        startedAt: started,
      }),
    );

    const response = await api.request('/status/paused-1', { token: aliceToken });
    const text = await response.text();
    const body = JSON.parse(text);

    expect(response.status).toBe(200);
    expect(body).toMatchObject({
      kickoff_id: 'paused-1',
      state: 'PAUSED',
      status: 'Pending Human Input',
      result: null,
      current_task: 'review',
      progress: {
        completed: 1,
        total: 3,
        remaining: 2,
        current: 'review',
        current_agent: 'Senior Researcher',
      },
      pending_human_input: { task_id: 'review', output: 'Second draft', attempt: 2 },
      usage_metrics: { total_tokens: 42, prompt_tokens: 30, completion_tokens: 12, successful_requests: 3 },
      execution_time: 299,
      created_at: '2025-01-01T10:00:00.000Z',
      meta: { requestId: 'r-9' },
    });
    expect(body.tasks).toHaveLength(1);
    expect(body.tasks[0]).toMatchObject({
      kickoff_id: 'paused-1',
      task_id: 'research',
      output: 'Findings about AI',
    });
    expect(body.last_executed_task).toMatchObject({ task_id: 'review', output: 'Second draft' });
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('hook-secret');
  });

  it('answers the same on the /{kickoff_id}/status path', async () => {
    const first = await (await api.request('/status/paused-1')).json();
    const second = await (await api.request('/paused-1/status')).json();

    expect(second).toEqual(first);
  });

  it('gives the final output as result when the execution succeeded', async () => {
    api.service.put(
      makeExecution({
        id: 'done-1',
        state: 'SUCCESS',
        outputs: [
          taskOutput('research', 'R'),
          taskOutput('review', 'V'),
          taskOutput('write', 'Final article'),
        ],
        result: 'Final article',
        resultJson: { title: 'AI' },
        startedAt: started,
        finishedAt: new Date('2025-01-01T10:00:31.500Z'),
      }),
    );

    const body = await readJson(await api.request('/status/done-1'));

    expect(body).toMatchObject({
      state: 'SUCCESS',
      result: 'Final article',
      result_json: { title: 'AI' },
      error: null,
      execution_time: 30.5,
      progress: { completed: 3, total: 3, remaining: 0 },
      pending_human_input: null,
    });
    expect(body.tasks.map((task: { task_id: string }) => task.task_id)).toEqual([
      'research',
      'review',
      'write',
    ]);
  });

  it('answers a finished execution with the same JSON on every read', async () => {
    api.service.put(
      makeExecution({
        id: 'done-2',
        state: 'SUCCESS',
        outputs: [taskOutput('research', 'R')],
        result: 'R',
        startedAt: started,
        finishedAt: new Date('2025-01-01T10:00:02.000Z'),
      }),
    );

    const first = await api.request('/status/done-2');
    const second = await api.request('/done-2/status');

    for (const response of [first, second]) {
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    }
    const text = await first.text();
    expect(await second.text()).toBe(text);
    expect(JSON.parse(text)).toMatchObject({ kickoff_id: 'done-2', state: 'SUCCESS', execution_time: 1 });
  });

  it('carries the error text in result when the execution failed', async () => {
    api.service.put(
      makeExecution({
        id: 'failed-1',
        state: 'FAILED',
        error: 'Task research failed: the model did not answer after 3 attempts',
        startedAt: started,
        finishedAt: started,
      }),
    );

    const body = await readJson(await api.request('/status/failed-1'));

    expect(body.state).toBe('FAILED');
    expect(body.result).toBe('Task research failed: the model did not answer after 3 attempts');
    expect(body.error).toBe(body.result);
  });

  it('answers 404 for an unknown id', async () => {
    const response = await api.request('/status/6f7e0b1c-0000-4000-8000-000000000000');

    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: 'Not Found', code: 'NOT_FOUND' });
  });

  it("answers 404 to a user token asking for another user's execution", async () => {
    const response = await api.request('/status/paused-1', { token: bobToken });

    expect(response.status).toBe(404);
  });
});

describe('POST /cancel/{kickoff_id}', () => {
  it('revokes a running execution and answers its status', async () => {
    api.service.put(makeExecution({ id: 'cancel-1', state: 'RUNNING', currentTask: 'research' }));

    const response = await api.request('/cancel/cancel-1', { method: 'POST' });
    const body = await readJson(response);

    expect(response.status).toBe(200);
    expect(body).toMatchObject({ kickoff_id: 'cancel-1', state: 'REVOKED', status: 'Execution cancelled' });
  });

  it('works with a JSON content type and no body', async () => {
    api.service.put(makeExecution({ id: 'cancel-2', state: 'PENDING' }));

    const response = await api.request('/cancel/cancel-2', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });

    expect(response.status).toBe(200);
    expect((await readJson(response)).state).toBe('REVOKED');
  });

  it("answers 404 for another user's execution", async () => {
    api.service.put(
      makeExecution({ id: 'cancel-3', state: 'RUNNING', owner: { tokenId: 'x', userId: 'alice' } }),
    );

    const response = await api.request('/cancel/cancel-3', { method: 'POST', token: bobToken });

    expect(response.status).toBe(404);
    expect(api.service.peek('cancel-3')!.state).toBe('RUNNING');
  });
});

describe('GET /inputs', () => {
  it("lists the crew's placeholders", async () => {
    const response = await api.request('/inputs', { token: aliceToken });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ inputs: ['topic', 'current_year'] });
  });
});
