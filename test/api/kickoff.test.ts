import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson, aliceToken, startApi } from './support/api-harness.ts';
import type { ApiHarness } from './support/api-harness.ts';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const inputs = { topic: 'AI agents', current_year: '2025' };

async function kickoff(body: unknown, headers: Record<string, string> = {}) {
  const response = await api.request('/kickoff', { body, headers });
  return { status: response.status, body: await readJson(response) };
}

describe('POST /kickoff', () => {
  it('starts an execution and returns its kickoff_id', async () => {
    const { status, body } = await kickoff({ inputs, meta: { requestId: 'r-1', source: 'test' } });

    expect(status).toBe(200);
    expect(body).toEqual({ kickoff_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const request = api.service.kickoffs.at(-1)!;
    expect(request.inputs).toEqual(inputs);
    expect(request.meta).toEqual({ requestId: 'r-1', source: 'test' });
    expect(request.webhooks).toEqual({ taskUrl: null, stepUrl: null, crewUrl: null, humanInput: null });
    expect(request.idempotencyKey).toBeNull();
  });

  it('passes webhook URLs and the human input webhook with its authentication to the service', async () => {
    const { status } = await kickoff({
      inputs,
      taskWebhookUrl: 'https://hooks.example.com/task',
      stepWebhookUrl: 'https://hooks.example.com/step',
      crewWebhookUrl: 'http://hooks.example.com/crew',
      humanInputWebhook: {
        url: 'https://hooks.example.com/human',
        authentication: { strategy: 'basic', username: 'reviewer', password: 's3cret' },
      },
    });

    expect(status).toBe(200);
    expect(api.service.kickoffs.at(-1)!.webhooks).toEqual({
      taskUrl: 'https://hooks.example.com/task',
      stepUrl: 'https://hooks.example.com/step',
      crewUrl: 'http://hooks.example.com/crew',
      humanInput: {
        url: 'https://hooks.example.com/human',
        authentication: { strategy: 'basic', username: 'reviewer', password: 's3cret' },
      },
    });
  });

  it('treats webhook fields sent as null like absent ones', async () => {
    const { status } = await kickoff({
      inputs,
      meta: null,
      taskWebhookUrl: null,
      stepWebhookUrl: null,
      crewWebhookUrl: null,
      humanInputWebhook: null,
    });

    expect(status).toBe(200);
    const request = api.service.kickoffs.at(-1)!;
    expect(request.webhooks).toEqual({ taskUrl: null, stepUrl: null, crewUrl: null, humanInput: null });
    expect(request.meta).toBeNull();
  });

  it('accepts the older humanInputWebhookUrl string', async () => {
    await kickoff({ inputs, humanInputWebhookUrl: 'https://hooks.example.com/legacy' });

    expect(api.service.kickoffs.at(-1)!.webhooks.humanInput).toEqual({
      url: 'https://hooks.example.com/legacy',
    });
  });

  it('accepts a bearer-authenticated human input webhook', async () => {
    await kickoff({
      inputs,
      humanInputWebhook: {
        url: 'https://h.example.com',
        authentication: { strategy: 'bearer', token: 't0k' },
      },
    });

    expect(api.service.kickoffs.at(-1)!.webhooks.humanInput).toEqual({
      url: 'https://h.example.com',
      authentication: { strategy: 'bearer', token: 't0k' },
    });
  });

  it('answers 422 with the missing inputs named', async () => {
    const { status, body } = await kickoff({ inputs: { topic: 'AI' } });

    expect(status).toBe(422);
    expect(body).toEqual({
      error: 'Validation Error',
      message: 'Missing required inputs',
      code: 'MISSING_INPUTS',
      details: { missing_inputs: ['current_year'] },
    });
  });

  it('returns the same kickoff_id for a repeated Idempotency-Key and body, 422 for another body', async () => {
    const first = await kickoff({ inputs }, { 'idempotency-key': 'order-42' });
    const again = await kickoff({ inputs }, { 'idempotency-key': 'order-42' });
    const other = await kickoff({ inputs: { ...inputs, topic: 'Other' } }, { 'idempotency-key': 'order-42' });

    expect(api.service.kickoffs.at(-1)!.idempotencyKey).toBe('order-42');
    expect(again.body.kickoff_id).toBe(first.body.kickoff_id);
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('passes a user caller through to the service', async () => {
    await api.request('/kickoff', { body: { inputs }, token: aliceToken });

    expect(api.service.kickoffs.at(-1)!.caller).toEqual({
      tokenId: 'alice-token',
      kind: 'user',
      userId: 'alice',
    });
  });
});

describe('POST /kickoff rejects malformed requests with 400', () => {
  it.each([
    ['a body that is not JSON', '{"inputs": {', 'INVALID_JSON', 'Request body is not valid JSON'],
    ['inputs that are not an object', { inputs: 'topic=AI' }, 'VALIDATION_ERROR', 'inputs must be an object'],
    ['inputs given as an array', { inputs: ['AI'] }, 'VALIDATION_ERROR', 'inputs must be an object'],
    ['no inputs at all', { meta: {} }, 'VALIDATION_ERROR', 'inputs is required'],
    ['an empty body', '', 'VALIDATION_ERROR', 'Request body must be an object'],
    [
      'a relative webhook URL',
      { inputs, taskWebhookUrl: '/hooks/task' },
      'VALIDATION_ERROR',
      'taskWebhookUrl must be an absolute http(s) URL',
    ],
    [
      'a webhook URL of another scheme',
      { inputs, crewWebhookUrl: 'ftp://example.com/crew' },
      'VALIDATION_ERROR',
      'crewWebhookUrl must be an absolute http(s) URL',
    ],
    [
      'a human input webhook without a URL',
      { inputs, humanInputWebhook: { authentication: { strategy: 'bearer', token: 't' } } },
      'VALIDATION_ERROR',
      'humanInputWebhook.url is required',
    ],
    [
      'bearer authentication without a token',
      { inputs, humanInputWebhook: { url: 'https://h.example.com', authentication: { strategy: 'bearer' } } },
      'VALIDATION_ERROR',
      'humanInputWebhook.authentication.token is required',
    ],
    [
      'basic authentication without a password',
      {
        inputs,
        humanInputWebhook: {
          url: 'https://h.example.com',
          authentication: { strategy: 'basic', username: 'u' },
        },
      },
      'VALIDATION_ERROR',
      'humanInputWebhook.authentication.password is required',
    ],
    [
      'an unknown authentication strategy',
      {
        inputs,
        humanInputWebhook: {
          url: 'https://h.example.com',
          authentication: { strategy: 'digest', token: 't' },
        },
      },
      'VALIDATION_ERROR',
      'humanInputWebhook.authentication.strategy must be one of bearer, basic',
    ],
    [
      'a bearer token with a line break',
      {
        inputs,
        humanInputWebhook: {
          url: 'https://h.example.com',
          authentication: { strategy: 'bearer', token: 'abc\r\nX-Injected: 1' },
        },
      },
      'VALIDATION_ERROR',
      'humanInputWebhook.authentication.token must not contain control characters',
    ],
    [
      'a basic password with a line feed',
      {
        inputs,
        humanInputWebhook: {
          url: 'https://h.example.com',
          authentication: { strategy: 'basic', username: 'u', password: 'p\nq' },
        },
      },
      'VALIDATION_ERROR',
      'humanInputWebhook.authentication.password must not contain control characters',
    ],
  ])('for %s', async (_case, body, code, message) => {
    const before = api.service.kickoffs.length;
    const { status, body: error } = await kickoff(body);

    expect(status).toBe(400);
    expect(error).toMatchObject({ error: 'Invalid Request', code, message });
    // Every validation error lists its fields the same way, whichever check found it.
    if (code === 'VALIDATION_ERROR')
      expect(error.details.fields).toContainEqual({ field: expect.any(String), message });
    expect(api.service.kickoffs.length).toBe(before);
  });

  it('never echoes a credential back in the error', async () => {
    const response = await api.request('/kickoff', {
      body: {
        inputs,
        humanInputWebhook: {
          url: 'https://h.example.com',
          authentication: { strategy: 'bearer', token: 'very-secret\r\nvalue' },
        },
      },
    });

    expect(await response.text()).not.toContain('very-secret');
  });

  it('refuses an Idempotency-Key that is too long', async () => {
    const { status, body } = await kickoff({ inputs }, { 'idempotency-key': 'k'.repeat(300) });

    expect(status).toBe(400);
    expect(body.message).toContain('Idempotency-Key');
  });
});
