import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { humanInputHeaders } from '../../src/webhooks/payloads.ts';
import { useDeliveryHarness, webhookSecret } from './delivery-harness.ts';
import { startScriptedReceiver } from '../support/scripted-receiver.ts';
import { until } from '../support/until.ts';

const harness = useDeliveryHarness();

describe('webhook delivery attempts', () => {
  it('posts the payload with Standard Webhooks headers that the official verifier accepts', async () => {
    const executionId = randomUUID();
    const payload = { kickoff_id: executionId, state: 'SUCCESS', meta: { requestId: 'r-1' } };
    const [messageId] = await harness.fixture.enqueue(executionId, [
      { url: `${harness.receiver.url}/crew`, payload, kind: 'crew' },
    ]);
    harness.startWorker();

    const [request] = await harness.receiver.waitFor('/crew', 1);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['webhook-id']).toBe(messageId);
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const verified = new Webhook(webhookSecret).verify(
      request!.rawBody,
      request!.headers as Record<string, string>,
    );
    expect(verified).toEqual(payload);

    const record = await harness.fixture.settled(executionId, messageId!);
    expect(record.status).toBe('delivered');
    expect(record.attempts).toHaveLength(1);
    expect(record.attempts[0]).toMatchObject({ attempt: 1, statusCode: 200, error: null });
    expect(record.attempts[0]!.durationMs).toBeGreaterThanOrEqual(0);
    // The timestamp is the worker's clock when it sent the attempt, in seconds.
    expect(Number(request!.headers['webhook-timestamp'])).toBe(
      Math.floor(record.attempts[0]!.at.getTime() / 1000),
    );
  });

  it('sends no signature without a secret, but still the id and timestamp', async () => {
    const executionId = randomUUID();
    const [messageId] = await harness.fixture.enqueue(executionId, [{ url: `${harness.receiver.url}/task` }]);
    harness.startWorker({ secret: undefined });

    const [request] = await harness.receiver.waitFor('/task', 1);
    expect(request!.headers['webhook-id']).toBe(messageId);
    expect(request!.headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(request!.headers['webhook-signature']).toBeUndefined();
  });

  it('authenticates human-input notifications with bearer and basic credentials', async () => {
    const executionId = randomUUID();
    await harness.fixture.enqueue(executionId, [
      {
        url: `${harness.receiver.url}/bearer`,
        kind: 'human_input',
        headers: humanInputHeaders({ strategy: 'bearer', token: 'tok-123' }),
      },
      {
        url: `${harness.receiver.url}/basic`,
        kind: 'human_input',
        headers: humanInputHeaders({ strategy: 'basic', username: 'ann', password: 'p:ss wörd' }),
      },
    ]);
    harness.startWorker();

    const [bearer] = await harness.receiver.waitFor('/bearer', 1);
    const [basic] = await harness.receiver.waitFor('/basic', 1);
    expect(bearer!.headers.authorization).toBe('Bearer tok-123');
    expect(basic!.headers.authorization).toBe(`Basic ${Buffer.from('ann:p:ss wörd').toString('base64')}`);
    // The stored credentials do not override the signature headers.
    expect(
      new Webhook(webhookSecret).verify(basic!.rawBody, basic!.headers as Record<string, string>),
    ).toBeDefined();
  });

  it('retries a failing receiver with the same webhook-id and records every attempt', async () => {
    harness.receiver.answer('/flaky', (response, _request, count) =>
      response.writeHead(count <= 2 ? 500 : 204).end(),
    );
    const executionId = randomUUID();
    const [messageId] = await harness.fixture.enqueue(executionId, [
      { url: `${harness.receiver.url}/flaky` },
    ]);
    harness.startWorker();

    const record = await harness.fixture.settled(executionId, messageId!);
    expect(record.status).toBe('delivered');
    expect(record.attempts.map(({ attempt, statusCode }) => ({ attempt, statusCode }))).toEqual([
      { attempt: 1, statusCode: 500 },
      { attempt: 2, statusCode: 500 },
      { attempt: 3, statusCode: 204 },
    ]);
    expect(record.attempts[0]!.error).toBe('receiver answered HTTP 500');
    const requests = harness.receiver.on('/flaky');
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((request) => request.headers['webhook-id']))).toEqual(new Set([messageId]));
    for (const request of requests) {
      expect(
        new Webhook(webhookSecret).verify(request.rawBody, request.headers as Record<string, string>),
      ).toBeDefined();
    }
  });

  it('marks a message failed once the schedule is spent', async () => {
    harness.receiver.answer('/down', (response) => response.writeHead(503).end());
    const executionId = randomUUID();
    const [messageId] = await harness.fixture.enqueue(executionId, [{ url: `${harness.receiver.url}/down` }]);
    const failed: string[] = [];
    harness.startWorker({ onFailed: (message) => failed.push(message.id) });

    const record = await harness.fixture.settled(executionId, messageId!);
    expect(record.status).toBe('failed');
    expect(record.attempts.map((attempt) => attempt.statusCode)).toEqual([503, 503, 503]);
    // Told once the record is on disk, which a read of the store may see a moment before.
    await until(() => failed.length > 0);
    expect(failed).toEqual([messageId]);
    expect(await harness.fixture.store.countFailedMessages()).toBe(1);
  });

  it('stops retrying a message when the receiver answers 410 Gone', async () => {
    harness.receiver.answer('/gone', (response) => response.writeHead(410).end());
    const executionId = randomUUID();
    const [messageId] = await harness.fixture.enqueue(executionId, [{ url: `${harness.receiver.url}/gone` }]);
    harness.startWorker();

    const record = await harness.fixture.settled(executionId, messageId!);
    expect(record.status).toBe('failed');
    expect(record.attempts).toHaveLength(1);
    expect(record.attempts[0]!.statusCode).toBe(410);
    // Nothing is left to send for it at any time to come.
    expect(await harness.fixture.store.claimDueMessages(new Date('2999-01-01'), 10, 1000)).toEqual([]);
    expect(harness.receiver.on('/gone')).toHaveLength(1);
  });

  it('does not follow redirects: a 3xx is a failed attempt and the redirect target never sees a request', async () => {
    harness.receiver.answer('/moved', (response) =>
      response.writeHead(302, { location: `${harness.receiver.url}/target` }).end(),
    );
    const executionId = randomUUID();
    const [messageId] = await harness.fixture.enqueue(executionId, [
      { url: `${harness.receiver.url}/moved` },
    ]);
    harness.startWorker();

    const record = await harness.fixture.settled(executionId, messageId!);
    expect(record.status).toBe('failed');
    expect(record.attempts.map((attempt) => attempt.statusCode)).toEqual([302, 302, 302]);
    expect(record.attempts[0]!.error).toBe('redirect not followed (HTTP 302)');
    expect(harness.receiver.on('/target')).toHaveLength(0);
  });

  it('gives up on a receiver that hangs past the attempt timeout and tries again', async () => {
    harness.receiver.answer('/slow', (response, _request, count) => {
      if (count > 1) response.writeHead(200).end();
      // The first request is never answered.
    });
    const executionId = randomUUID();
    const [messageId] = await harness.fixture.enqueue(executionId, [{ url: `${harness.receiver.url}/slow` }]);
    // Spare attempts: an answered attempt that a busy machine pushes past the timeout is retried, not failed.
    harness.startWorker({ timeoutMs: 500, schedule: [0.05, 0.05, 0.05, 0.05] });

    const record = await harness.fixture.settled(executionId, messageId!);
    expect(record.status).toBe('delivered');
    expect(record.attempts[0]).toMatchObject({ statusCode: null, error: 'timed out after 500 ms' });
    expect(record.attempts.at(-1)).toMatchObject({ statusCode: 200, error: null });
  });

  it('delivers to a receiver that was down once it comes back', async () => {
    const port = harness.receiver.port;
    await harness.receiver.close();
    const executionId = randomUUID();
    const [messageId] = await harness.fixture.enqueue(executionId, [
      { url: `http://127.0.0.1:${port}/later` },
    ]);
    harness.startWorker({ schedule: [0.05, 0.3, 0.3, 0.3] });

    await until(
      async () => (await harness.fixture.store.listDeliveries(executionId))[0]!.attempts.length > 0,
      undefined,
      () => 'no attempt was made',
    );
    harness.receiver = await startScriptedReceiver(port);

    const record = await harness.fixture.settled(executionId, messageId!);
    expect(record.status).toBe('delivered');
    expect(record.attempts[0]).toMatchObject({ statusCode: null, error: 'connection refused' });
    expect(record.attempts.at(-1)).toMatchObject({ statusCode: 200, error: null });
    expect(harness.receiver.on('/later')).toHaveLength(1);
  });

  it('waits as long as Retry-After asks when that is longer than the schedule', async () => {
    harness.receiver.answer('/busy', (response, _request, count) =>
      count === 1 ? response.writeHead(429, { 'retry-after': '1' }).end() : response.writeHead(200).end(),
    );
    const executionId = randomUUID();
    const [messageId] = await harness.fixture.enqueue(executionId, [{ url: `${harness.receiver.url}/busy` }]);
    const retries: Date[] = [];
    harness.startWorker({
      onAttempt: (_message, _attempt, outcome) => {
        if (outcome.kind === 'retry') retries.push(outcome.at);
      },
    });

    const record = await harness.fixture.settled(executionId, messageId!);
    expect(record.status).toBe('delivered');
    expect(harness.receiver.on('/busy')).toHaveLength(2);
    // Read from the worker's own record, on its own clock: the retry was set a second after the refused attempt
    // ended, past the 50 ms schedule, and the second attempt waited for it.
    const [first, second] = record.attempts;
    expect(retries).toHaveLength(1);
    expect(retries[0]!.getTime()).toBe(first!.at.getTime() + first!.durationMs + 1000);
    expect(second!.at.getTime()).toBeGreaterThanOrEqual(retries[0]!.getTime());
  });
});
