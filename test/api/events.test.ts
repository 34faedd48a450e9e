import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aliceCaller, aliceToken, bobToken, orgCaller, orgToken, startApi } from './support/api-harness.ts';
import type { ApiHarness } from './support/api-harness.ts';
import { makeExecution } from './support/example-crew.ts';
import { SseReader } from './support/sse-reader.ts';
import { until } from '../support/until.ts';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi({ heartbeatMs: 50 });
});
afterAll(() => api.close());

function running(id: string): void {
  api.service.put(
    makeExecution({ id, state: 'RUNNING', owner: { tokenId: 'alice-token', userId: 'alice' } }),
  );
}

async function open(id: string, headers: Record<string, string> = {}, query = '') {
  const response = await api.request(`/executions/${id}/events${query}`, { headers });
  return { response, reader: new SseReader(response) };
}

describe('GET /executions/{id}/events', () => {
  it('streams stored and new events with sequence ids and type names, then ends with the execution', async () => {
    running('sse-1');
    api.service.appendEvent('sse-1', 'execution-start', { state: 'RUNNING' });
    api.service.appendEvent('sse-1', 'task-start', { task_id: 'research', attempt: 1 });

    const { response, reader } = await open('sse-1');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    // A client following many executions reuses its connections.
    expect(response.headers.get('connection')).toBe('keep-alive');
    const stored = await reader.events(2);
    api.service.appendEvent('sse-1', 'task-end', { task_id: 'research', output: 'line one\nline two' });
    api.service.appendEvent('sse-1', 'execution-end', { state: 'SUCCESS' });
    api.service.finish('sse-1', 'SUCCESS');
    const live = await reader.rest();

    expect([...stored, ...live]).toEqual([
      { id: '1', event: 'execution-start', data: '{"state":"RUNNING"}' },
      { id: '2', event: 'task-start', data: '{"task_id":"research","attempt":1}' },
      {
        id: '3',
        event: 'task-end',
        data: JSON.stringify({ task_id: 'research', output: 'line one\nline two' }),
      },
      { id: '4', event: 'execution-end', data: '{"state":"SUCCESS"}' },
    ]);
  });

  it('resumes after Last-Event-ID without gaps or repeats', async () => {
    running('sse-2');
    for (let index = 1; index <= 5; index += 1) api.service.appendEvent('sse-2', 'step-end', { index });

    const first = await open('sse-2');
    const seen = await first.reader.events(3);
    await first.reader.cancel();
    const resumed = await open('sse-2', { 'last-event-id': seen.at(-1)!.id! });
    const more = await resumed.reader.events(2);
    api.service.appendEvent('sse-2', 'step-end', { index: 6 });
    api.service.finish('sse-2', 'SUCCESS');
    const rest = await resumed.reader.rest();

    expect([...seen, ...more, ...rest].map((event) => event.id)).toEqual(['1', '2', '3', '4', '5', '6']);
  });

  it('resumes after the last_event_id query parameter', async () => {
    running('sse-3');
    for (let index = 1; index <= 3; index += 1) api.service.appendEvent('sse-3', 'step-end', { index });
    api.service.finish('sse-3', 'FAILED');

    const { reader } = await open('sse-3', {}, '?last_event_id=2');

    expect((await reader.rest()).map((event) => event.id)).toEqual(['3']);
  });

  it('sends heartbeat comments while nothing happens', async () => {
    running('sse-4');
    const { reader } = await open('sse-4');

    const blocks = [await reader.next(), await reader.next(), await reader.next()];
    await reader.cancel();

    expect(blocks.filter((block) => block?.comment === 'heartbeat').length).toBeGreaterThanOrEqual(2);
  });

  it('stops watching when the client goes away', async () => {
    running('sse-5');
    const controller = new AbortController();
    const response = await api.request('/executions/sse-5/events', { signal: controller.signal });
    await new SseReader(response).next();
    const signal = api.service.watchSignals.at(-1)!;

    controller.abort();
    await until(
      () => api.service.endedWatches.includes('sse-5'),
      undefined,
      () => 'the server still watches sse-5 after its client went away',
    );

    // Ended by the client leaving, not by the execution: it still runs and nothing finished it.
    expect(signal.aborted).toBe(true);
    expect(api.service.peek('sse-5')?.state).toBe('RUNNING');
  });

  it('answers 404 before streaming for an unknown or foreign execution', async () => {
    running('sse-6');

    const unknown = await api.request('/executions/nope/events');
    const foreign = await api.request('/executions/sse-6/events', { token: bobToken });

    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: 'NOT_FOUND' });
    expect(foreign.status).toBe(404);
  });

  it('answers 400 for a Last-Event-ID that is not a sequence number', async () => {
    running('sse-7');

    const response = await api.request('/executions/sse-7/events', { headers: { 'last-event-id': 'abc' } });

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'Last-Event-ID must be a non-negative integer',
    });
  });

  it('answers HEAD on a running execution at once with the stream headers and no body', async () => {
    running('sse-8');

    // A HEAD that waited for the stream to end would wait for the execution: the test's time limit would end it.
    const response = await api.request('/executions/sse-8/events', { method: 'HEAD' });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(await response.text()).toBe('');
    expect((await api.request('/executions/nope/events', { method: 'HEAD' })).status).toBe(404);
  });
});

describe('an event stream whose token is revoked', () => {
  const unauthorized = {
    error: 'Unauthorized',
    message: 'Invalid or missing bearer token',
    code: 'UNAUTHORIZED',
  };

  /** A server whose token lookup answers as the token service does once alice's token is revoked. */
  async function startRevocable(tokenRecheckMs: number) {
    let aliceRevoked = false;
    const server = await startApi({
      heartbeatMs: 3_600_000,
      tokenRecheckMs,
      authenticate: (secret) =>
        Promise.resolve(
          secret === orgToken ? orgCaller : secret === aliceToken && !aliceRevoked ? aliceCaller : null,
        ),
    });
    return {
      server,
      revokeAlice: () => {
        aliceRevoked = true;
      },
    };
  }

  function runningFor(server: ApiHarness, id: string): void {
    server.service.put(
      makeExecution({ id, state: 'RUNNING', owner: { tokenId: 'alice-token', userId: 'alice' } }),
    );
    server.service.appendEvent(id, 'execution-start', { state: 'RUNNING' });
  }

  it('ends with the 401 error before the next event is sent', async () => {
    // No periodic check: only the check before each event can end this stream.
    const { server, revokeAlice } = await startRevocable(3_600_000);
    try {
      runningFor(server, 'revoked-1');
      const reader = new SseReader(
        await server.request('/executions/revoked-1/events', { token: aliceToken }),
      );
      expect(await reader.events(1)).toMatchObject([{ id: '1', event: 'execution-start' }]);

      revokeAlice();
      server.service.appendEvent('revoked-1', 'step-end', { prompt: 'the reviewer said: secret feedback' });

      expect(await reader.rest()).toEqual([{ event: 'error', data: JSON.stringify(unauthorized) }]);
    } finally {
      await server.close();
    }
  });

  it('ends while nothing happens, without waiting for the execution', async () => {
    const { server, revokeAlice } = await startRevocable(10);
    try {
      runningFor(server, 'revoked-2');
      const reader = new SseReader(
        await server.request('/executions/revoked-2/events', { token: aliceToken }),
      );
      await reader.events(1);
      const signal = server.service.watchSignals.at(-1)!;

      revokeAlice();

      expect(await reader.rest()).toEqual([{ event: 'error', data: JSON.stringify(unauthorized) }]);
      expect(signal.aborted).toBe(true);
      expect((await server.request('/status/revoked-2')).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('keeps streams of tokens that still authenticate open', async () => {
    const { server, revokeAlice } = await startRevocable(10);
    try {
      runningFor(server, 'revoked-3');
      const org = new SseReader(await server.request('/executions/revoked-3/events', { token: orgToken }));
      const alice = new SseReader(
        await server.request('/executions/revoked-3/events', { token: aliceToken }),
      );
      await org.events(1);
      await alice.events(1);

      revokeAlice();
      expect(await alice.rest()).toHaveLength(1);
      server.service.appendEvent('revoked-3', 'execution-end', { state: 'SUCCESS' });
      server.service.finish('revoked-3', 'SUCCESS');

      expect(await org.rest()).toEqual([{ id: '2', event: 'execution-end', data: '{"state":"SUCCESS"}' }]);
    } finally {
      await server.close();
    }
  });
});
