import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson, aliceToken, bobToken, startApi } from './support/api-harness.ts';
import type { ApiHarness } from './support/api-harness.ts';
import { makeExecution } from './support/example-crew.ts';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
  const states = ['SUCCESS', 'RUNNING', 'SUCCESS', 'FAILED', 'SUCCESS'] as const;
  states.forEach((state, index) => {
    const createdAt = new Date(Date.UTC(2025, 0, 1, 10, index));
    api.service.put(
      makeExecution({
        id: `exec-${index}`,
        state,
        createdAt,
        updatedAt: createdAt,
        owner:
          index === 1 ? { tokenId: 'alice-token', userId: 'alice' } : { tokenId: 'org-token', userId: null },
      }),
    );
  });
});
afterAll(() => api.close());

async function list(query: string, token?: string) {
  const response = await api.request(`/executions${query}`, token === undefined ? {} : { token });
  return { status: response.status, body: await readJson(response) };
}

const ids = (body: { items: { kickoff_id: string }[] }) => body.items.map((item) => item.kickoff_id);

describe('GET /executions', () => {
  it('lists executions newest first as status objects', async () => {
    const { status, body } = await list('');

    expect(status).toBe(200);
    expect(ids(body)).toEqual(['exec-4', 'exec-3', 'exec-2', 'exec-1', 'exec-0']);
    expect(body.items[0]).toMatchObject({
      kickoff_id: 'exec-4',
      state: 'SUCCESS',
      status: 'Execution completed',
    });
    expect(body.next_cursor).toBeNull();
  });

  it('filters by state', async () => {
    const { body } = await list('?state=SUCCESS');

    expect(ids(body)).toEqual(['exec-4', 'exec-2', 'exec-0']);
  });

  it('pages with limit and cursor without gaps or repeats', async () => {
    const first = await list('?limit=2');
    const second = await list(`?limit=2&cursor=${first.body.next_cursor}`);
    const third = await list(`?limit=2&cursor=${second.body.next_cursor}`);

    expect([...ids(first.body), ...ids(second.body), ...ids(third.body)]).toEqual([
      'exec-4',
      'exec-3',
      'exec-2',
      'exec-1',
      'exec-0',
    ]);
    expect(third.body.next_cursor).toBeNull();
  });

  it('shows a user token only its own executions', async () => {
    expect(ids((await list('', aliceToken)).body)).toEqual(['exec-1']);
    expect(ids((await list('', bobToken)).body)).toEqual([]);
  });

  it.each([
    ['?state=DONE', 'state must be one of PENDING, RUNNING, PAUSED, SUCCESS, FAILED, REVOKED'],
    ['?limit=0', 'limit must be at least 1'],
    ['?limit=1000', 'limit must be at most 100'],
    ['?limit=ten', 'limit must be a number'],
  ])('answers 400 for %s', async (query, message) => {
    const { status, body } = await list(query);

    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 'VALIDATION_ERROR', message });
  });
});

describe('GET /executions/{id}/deliveries', () => {
  it('lists webhook messages and attempts without credentials in their URLs', async () => {
    api.service.setDeliveries('exec-0', [
      {
        id: 'msg-1',
        kind: 'crew',
        url: 'https://user:hunter2@hooks.example.com/crew?x=1',
        status: 'delivered',
        createdAt: new Date('2025-01-01T10:00:05.000Z'),
        attempts: [
          {
            attempt: 1,
            at: new Date('2025-01-01T10:00:05.000Z'),
            statusCode: 500,
            error: 'HTTP 500',
            durationMs: 12,
          },
          {
            attempt: 2,
            at: new Date('2025-01-01T10:00:10.000Z'),
            statusCode: 200,
            error: null,
            durationMs: 8,
          },
        ],
      },
    ]);

    const response = await api.request('/executions/exec-0/deliveries');
    const text = await response.text();

    expect(response.status).toBe(200);
    expect(text).not.toContain('hunter2');
    expect(JSON.parse(text)).toEqual({
      items: [
        {
          id: 'msg-1',
          kind: 'crew',
          url: 'https://hooks.example.com/crew?x=1',
          status: 'delivered',
          created_at: '2025-01-01T10:00:05.000Z',
          attempts: [
            {
              attempt: 1,
              at: '2025-01-01T10:00:05.000Z',
              status_code: 500,
              error: 'HTTP 500',
              duration_ms: 12,
            },
            { attempt: 2, at: '2025-01-01T10:00:10.000Z', status_code: 200, error: null, duration_ms: 8 },
          ],
        },
      ],
    });
  });

  it("answers 404 for another user's execution", async () => {
    const response = await api.request('/executions/exec-0/deliveries', { token: aliceToken });

    expect(response.status).toBe(404);
  });

  it('shows no secret a URL carries in its query string or path', async () => {
    const secrets = [
      'q-token-1',
      'q-api-key-2',
      'q-access-3',
      'q-key-4',
      'q-sig-5',
      'XyZ0123456789AbCdEfGhIjKl',
    ];
    const urls = [
      `https://hooks.example.com/a?token=${secrets[0]}&run=7`,
      `https://hooks.example.com/b?api_key=${secrets[1]}`,
      `https://hooks.example.com/c?access_token=${secrets[2]}`,
      `https://hooks.example.com/d?key=${secrets[3]}&signature=${secrets[4]}`,
      `https://hooks.slack.com/services/T0001/B0001/${secrets[5]}`,
    ];
    api.service.setDeliveries(
      'exec-0',
      urls.map((url, index) => ({
        id: `msg-secret-${index}`,
        kind: 'task' as const,
        url,
        status: 'pending' as const,
        createdAt: new Date('2025-01-01T10:00:05.000Z'),
        attempts: [],
      })),
    );

    const response = await api.request('/executions/exec-0/deliveries');
    const text = await response.text();

    expect(response.status).toBe(200);
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(JSON.parse(text).items.map((item: { url: string }) => item.url)).toEqual([
      'https://hooks.example.com/a?token=REDACTED&run=7',
      'https://hooks.example.com/b?api_key=REDACTED',
      'https://hooks.example.com/c?access_token=REDACTED',
      'https://hooks.example.com/d?key=REDACTED&signature=REDACTED',
      'https://hooks.slack.com/services/T0001/B0001/REDACTED',
    ]);
  });
});
