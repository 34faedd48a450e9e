import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { numberedAnswers } from '../support/model-requests.ts';
import { apiClient, crewsDir, startCrewd } from '../support/crewd.ts';
import { startScriptedReceiver, type ScriptedReceiver } from '../support/scripted-receiver.ts';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
let model: FakeOpenAIServer;
let receiver: ScriptedReceiver;
let crewd: RunningServer;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: numberedAnswers() });
  receiver = await startScriptedReceiver();
  crewd = await startCrewd({
    crewDir: join(crewsDir, 'review-crew'),
    modelUrl: model.url,
    env: { CREWD_WEBHOOK_SECRET: secret },
  });
  api = apiClient(crewd.url);
});

afterAll(async () => {
  await crewd.close();
  await receiver.close();
  await model.close();
});

const legUrls = (leg: string) => ({
  taskWebhookUrl: `${receiver.url}/${leg}/task`,
  stepWebhookUrl: `${receiver.url}/${leg}/step`,
  crewWebhookUrl: `${receiver.url}/${leg}/crew`,
});

describe('webhooks across kickoff and resume legs', () => {
  it('sends signed payloads of the contract and follows rule 1 of /resume', async () => {
    const meta = { requestId: 'req-7', source: 'test' };
    const kickoff = await api.post('/kickoff', {
      inputs: { product: 'tents', audience: 'campers' },
      meta,
      ...legUrls('kickoff'),
      humanInputWebhook: {
        url: `${receiver.url}/human`,
        authentication: { strategy: 'bearer', token: 'hook-secret-1' },
      },
    });
    const id = kickoff.body.kickoff_id as string;
    await api.waitForState(id, ['PAUSED']);

    // Kickoff leg: gather and the first draft, each with a task webhook and a final-answer step webhook.
    const tasks = await receiver.waitFor('/kickoff/task', 2);
    expect(tasks.map((webhook) => webhook.body.task_id)).toEqual(['gather', 'draft']);
    expect(tasks[0]!.body).toEqual({
      kickoff_id: id,
      task_id: 'gather',
      name: 'gather',
      description: 'List three facts about tents.',
      expected_output: 'Three facts, one per line.',
      summary: expect.any(String),
      agent: 'Market analyst for tents',
      output: expect.any(String),
      output_json: null,
      meta,
    });
    const steps = await receiver.waitFor('/kickoff/step', 2);
    expect(steps[0]!.body).toMatchObject({ kickoff_id: id, task_id: 'gather', tool: null, meta });
    expect(Object.keys(steps[0]!.body).sort()).toEqual(
      ['agent', 'kickoff_id', 'meta', 'prompt', 'result', 'task_id', 'thought', 'tool', 'tool_input'].sort(),
    );

    const [human] = await receiver.waitFor('/human', 1);
    expect(human!.headers.authorization).toBe('Bearer hook-secret-1');
    expect(human!.body).toEqual({
      event: 'human_input_requested',
      execution_id: id,
      kickoff_id: id,
      task_id: 'draft',
      task_name: 'draft',
      agent: 'Editor',
      output: expect.any(String),
      attempt: 1,
      meta,
    });

    // Every webhook carries Standard Webhooks headers that the official verifier accepts.
    const verifier = new Webhook(secret);
    for (const webhook of [...tasks, ...steps, human!]) {
      expect(() =>
        verifier.verify(webhook.rawBody, {
          'webhook-id': webhook.headers['webhook-id'] as string,
          'webhook-timestamp': webhook.headers['webhook-timestamp'] as string,
          'webhook-signature': webhook.headers['webhook-signature'] as string,
        }),
      ).not.toThrow();
    }

    // Reject leg repeats only the task URL: step and crew webhooks stop; human input stays.
    await api.post('/resume', {
      execution_id: id,
      task_id: 'draft',
      human_feedback: 'Shorter.',
      is_approve: false,
      taskWebhookUrl: `${receiver.url}/reject/task`,
    });
    await api.waitForState(id, ['PAUSED']);
    const retried = await receiver.waitFor('/reject/task', 1);
    expect(retried[0]!.body.task_id).toBe('draft');
    const humanAgain = await receiver.waitFor('/human', 2);
    expect(humanAgain[1]!.body.attempt).toBe(2);

    // Approve leg with fresh URLs and a basic-auth human-input webhook.
    await api.post('/resume', {
      execution_id: id,
      task_id: 'draft',
      human_feedback: 'Good.',
      is_approve: true,
      ...legUrls('approve'),
    });
    await api.waitForState(id, ['SUCCESS']);
    const [crew] = await receiver.waitFor('/approve/crew', 1);
    expect(crew!.body).toEqual({
      kickoff_id: id,
      state: 'SUCCESS',
      result: expect.any(String),
      result_json: null,
      error: null,
      token_usage: { total_tokens: 60, prompt_tokens: 40, completion_tokens: 20 },
      meta,
    });
    await receiver.waitFor('/approve/task', 1);

    // Every message is queued with the change that causes it, so once SUCCESS shows, the list is complete: each
    // leg's messages went only to the URLs given with that leg, none to an earlier leg's.
    const deliveries = await api.get(`/executions/${id}/deliveries`);
    expect(deliveries.status).toBe(200);
    const paths = (deliveries.body.items as { url: string }[]).map((item) => new URL(item.url).pathname);
    const count = (path: string): number => paths.filter((each) => each === path).length;
    expect(count('/kickoff/task')).toBe(2);
    expect(count('/kickoff/step')).toBe(2);
    expect(count('/kickoff/crew')).toBe(0);
    expect(count('/reject/task')).toBe(1);
    expect(paths.filter((path) => path.startsWith('/reject/'))).toEqual(['/reject/task']);
    expect(count('/approve/task')).toBe(1);
    expect(count('/approve/step')).toBe(1);
    expect(count('/approve/crew')).toBe(1);
    expect(count('/human')).toBe(2);
    expect(JSON.stringify(deliveries.body)).not.toContain('hook-secret-1');
  });

  it('sends the crew webhook on failure too', async () => {
    model.enqueue({ status: 400, errorMessage: 'bad request' });
    const kickoff = await api.post('/kickoff', {
      inputs: { product: 'boats', audience: 'sailors' },
      crewWebhookUrl: `${receiver.url}/failing/crew`,
    });
    const failed = await api.waitForState(kickoff.body.kickoff_id, ['FAILED', 'SUCCESS']);
    expect(failed.body.state).toBe('FAILED');
    expect(failed.body.result).toBe(failed.body.error);
    expect(failed.body.error).toContain('gather');
    expect(failed.body.error).not.toContain('bad request');
    const [crew] = await receiver.waitFor('/failing/crew', 1);
    expect(crew!.body).toMatchObject({
      kickoff_id: kickoff.body.kickoff_id,
      state: 'FAILED',
      error: failed.body.error,
    });
  });

  it('sends the crew webhook when an execution is cancelled', async () => {
    const kickoff = await api.post('/kickoff', {
      inputs: { product: 'canoes', audience: 'rivers' },
      crewWebhookUrl: `${receiver.url}/cancelled/crew`,
    });
    const id = kickoff.body.kickoff_id as string;
    await api.waitForState(id, ['PAUSED']);

    await api.post(`/cancel/${id}`);

    const [crew] = await receiver.waitFor('/cancelled/crew', 1);
    expect(crew!.body).toMatchObject({ kickoff_id: id, state: 'REVOKED', result: null });
  });

  it('sends basic authentication to the human-input webhook', async () => {
    const kickoff = await api.post('/kickoff', {
      inputs: { product: 'lamps', audience: 'shops' },
      humanInputWebhook: {
        url: `${receiver.url}/basic-human`,
        authentication: { strategy: 'basic', username: 'ana', password: 'p4ss' },
      },
    });
    await api.waitForState(kickoff.body.kickoff_id, ['PAUSED']);
    const [human] = await receiver.waitFor('/basic-human', 1);
    expect(human!.headers.authorization).toBe(`Basic ${Buffer.from('ana:p4ss').toString('base64')}`);
  });

  it('refuses credentials with line breaks at kickoff', async () => {
    const response = await api.post('/kickoff', {
      inputs: { product: 'x', audience: 'y' },
      humanInputWebhook: {
        url: `${receiver.url}/human`,
        authentication: { strategy: 'bearer', token: 'abc\r\nX-Injected: 1' },
      },
    });
    expect(response.status).toBe(400);
  });
});
