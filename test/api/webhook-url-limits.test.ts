import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson, startApi } from './support/api-harness.ts';
import type { ApiHarness } from './support/api-harness.ts';
import { makeExecution, taskOutput } from './support/example-crew.ts';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const inputs = { topic: 'AI agents', current_year: '2025' };
const limit = 2048;

/** An absolute https URL exactly `length` characters long. */
function urlOfLength(length: number): string {
  const start = 'https://hooks.example.com/';
  return start + 'a'.repeat(length - start.length);
}

/** Every webhook URL field a kickoff or resume body takes, holding `url`. */
const fields: readonly [string, (url: string) => Record<string, unknown>][] = [
  ['taskWebhookUrl', (url) => ({ taskWebhookUrl: url })],
  ['stepWebhookUrl', (url) => ({ stepWebhookUrl: url })],
  ['crewWebhookUrl', (url) => ({ crewWebhookUrl: url })],
  ['humanInputWebhookUrl', (url) => ({ humanInputWebhookUrl: url })],
  ['humanInputWebhook.url', (url) => ({ humanInputWebhook: { url } })],
  ['webhooks.url', (url) => ({ webhooks: { url, realtime: true } })],
];

const pausedId = '4b7e2d1c-9a8f-4e6d-8c5b-3a2f1e0d9c8b';

describe('webhook URL length', () => {
  it.each(fields)('refuses a 1 MB %s on kickoff with 400, echoing nothing', async (field, body) => {
    const before = api.service.kickoffs.length;

    const response = await api.request('/kickoff', { body: { inputs, ...body(urlOfLength(1_000_000)) } });
    const text = await response.text();

    expect(response.status).toBe(400);
    expect(JSON.parse(text)).toMatchObject({
      error: 'Invalid Request',
      code: 'VALIDATION_ERROR',
      message: `${field} must have at most ${limit} characters`,
    });
    expect(text.length).toBeLessThan(1000);
    expect(api.service.kickoffs.length).toBe(before);
  });

  it.each(fields)(
    'refuses a %s over the limit on resume, leaving the execution paused',
    async (field, body) => {
      api.service.put(
        makeExecution({
          id: pausedId,
          state: 'PAUSED',
          outputs: [taskOutput('research', 'Findings')],
          pending: { taskId: 'review', attempt: 1, output: taskOutput('review', 'Draft review') },
          currentTask: 'review',
        }),
      );

      const response = await api.request('/resume', {
        body: {
          execution_id: pausedId,
          task_id: 'review',
          human_feedback: 'fine',
          is_approve: true,
          ...body(urlOfLength(limit + 1)),
        },
      });

      expect(response.status).toBe(400);
      expect(await readJson(response)).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: `${field} must have at most ${limit} characters`,
      });
      expect((await readJson(await api.request(`/status/${pausedId}`))).state).toBe('PAUSED');
    },
  );

  it.each(fields)('accepts a %s of exactly the limit', async (_field, body) => {
    const response = await api.request('/kickoff', { body: { inputs, ...body(urlOfLength(limit)) } });

    expect(response.status).toBe(200);
  });
});
