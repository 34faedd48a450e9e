import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { humanInputHeaders } from '../../src/webhooks/payloads.ts';
import { useDeliveryHarness } from './delivery-harness.ts';
import { until } from '../support/until.ts';

const harness = useDeliveryHarness();

describe('webhook delivery over time', () => {
  it('keeps the messages of one execution to one URL in order, even across retries', async () => {
    harness.receiver.answer('/ordered', (response, _request, count) =>
      response.writeHead(count === 1 ? 500 : 200).end(),
    );
    const executionId = randomUUID();
    await harness.fixture.enqueue(
      executionId,
      [1, 2, 3, 4, 5].map((n) => ({ url: `${harness.receiver.url}/ordered`, payload: { n } })),
    );
    await harness.fixture.enqueue(executionId, [
      { url: `${harness.receiver.url}/ordered`, payload: { n: 6 } },
    ]);
    harness.startWorker({ concurrency: 8 });

    await harness.fixture.settled(
      executionId,
      (await harness.fixture.store.listDeliveries(executionId)).at(-1)!.id,
    );
    const order = harness.receiver
      .on('/ordered')
      .map((request) => (JSON.parse(request.rawBody) as { n: number }).n);
    expect(order).toEqual([1, 1, 2, 3, 4, 5, 6]);
  });

  it('delivers messages for different receivers in parallel', async () => {
    const release: Array<() => void> = [];
    harness.receiver.answer('/a', (response) => release.push(() => response.writeHead(200).end()));
    harness.receiver.answer('/b', (response) => release.push(() => response.writeHead(200).end()));
    const executionA = randomUUID();
    const [a] = await harness.fixture.enqueue(executionA, [{ url: `${harness.receiver.url}/a` }]);
    const executionB = randomUUID();
    const [b] = await harness.fixture.enqueue(executionB, [{ url: `${harness.receiver.url}/b` }]);
    harness.startWorker();

    // Both requests are open at once before either is answered.
    await harness.receiver.waitFor('/a', 1);
    await harness.receiver.waitFor('/b', 1);
    release.forEach((answer) => answer());
    expect((await harness.fixture.settled(executionA, a!)).status).toBe('delivered');
    expect((await harness.fixture.settled(executionB, b!)).status).toBe('delivered');
  });

  it('reads at most 64 KiB of an answer, so an endless body does not hold the attempt', async () => {
    harness.receiver.answer('/endless', (response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const timer = setInterval(() => response.write(chunk), 5);
      response.on('close', () => clearInterval(timer));
    });
    const executionId = randomUUID();
    const [messageId] = await harness.fixture.enqueue(executionId, [
      { url: `${harness.receiver.url}/endless` },
    ]);
    harness.startWorker({ timeoutMs: 5000 });

    const record = await harness.fixture.settled(executionId, messageId!);
    // Reading on would have run into the 5 s timeout, and a timed-out attempt is not delivered.
    expect(record.status).toBe('delivered');
    expect(record.attempts).toHaveLength(1);
    expect(record.attempts[0]!.error).toBeNull();
  });

  it('resumes pending deliveries after a restart, on a new store opened on the same file', async () => {
    harness.receiver.answer('/restart', (response, _request, count) =>
      response.writeHead(count === 1 ? 503 : 200).end(),
    );
    const executionId = randomUUID();
    const [messageId] = await harness.fixture.enqueue(executionId, [
      { url: `${harness.receiver.url}/restart` },
    ]);
    // The first worker's clock stands still, so its retry never comes due: the message stays pending for the next.
    const stopped = new Date();
    const first = harness.startWorker({ schedule: [0.5], clock: () => stopped });
    // The receiver has the request before the worker has its answer: wait for the recorded attempt, since a stop
    // before that leaves the attempt unrecorded on purpose (the answer is unknown).
    let pending = (await harness.fixture.store.listDeliveries(executionId))[0]!;
    await until(
      async () => {
        pending = (await harness.fixture.store.listDeliveries(executionId))[0]!;
        return pending.attempts.length === 1;
      },
      undefined,
      () => 'the first worker did not record its attempt',
    );
    await first.stop();
    expect(pending.status).toBe('pending');

    const reopened = await openSqliteStore(harness.fixture.path);
    try {
      const second = harness.startWorker({ store: reopened, schedule: [0.5] });
      let record = pending;
      await until(
        async () => {
          record = (await reopened.listDeliveries(executionId))[0]!;
          return record.status !== 'pending';
        },
        undefined,
        () => 'the second worker did not deliver',
      );
      await second.stop();
      expect(record.status).toBe('delivered');
      expect(record.attempts.map((attempt) => attempt.statusCode)).toEqual([503, 200]);
      const requests = harness.receiver.on('/restart');
      expect(requests.map((request) => request.headers['webhook-id'])).toEqual([messageId, messageId]);
    } finally {
      await reopened.close();
    }
  });

  it('never logs human-input credentials, even when attempts fail', async () => {
    harness.receiver.answer('/secret?key=query-secret', (response) => response.writeHead(500).end());
    const executionId = randomUUID();
    await harness.fixture.enqueue(executionId, [
      {
        url: `${harness.receiver.url}/secret?key=query-secret`,
        kind: 'human_input',
        headers: humanInputHeaders({ strategy: 'bearer', token: 'bearer-secret' }),
      },
      {
        url: `${harness.receiver.url}/secret?key=query-secret`,
        kind: 'human_input',
        headers: humanInputHeaders({ strategy: 'basic', username: 'ann', password: 'basic-secret' }),
      },
    ]);
    const lines: string[] = [];
    harness.startWorker({
      logger: { warn: (details, message) => lines.push(JSON.stringify({ details, message })) },
    });

    // Lines are written after each attempt is recorded: wait for both messages' last lines, not for the store.
    await until(
      () => lines.filter((line) => line.includes('webhook delivery failed')).length === 2,
      undefined,
      () => `the messages did not fail; logged:\n${lines.join('\n')}`,
    );
    // Three attempts each: two retries and the final failure.
    expect(lines).toHaveLength(6);
    expect((await harness.fixture.store.listDeliveries(executionId)).map((record) => record.status)).toEqual([
      'failed',
      'failed',
    ]);
    const logged = lines.join('\n');
    const basic = Buffer.from('ann:basic-secret').toString('base64');
    for (const secretText of ['bearer-secret', 'basic-secret', basic, 'query-secret']) {
      expect(logged).not.toContain(secretText);
    }
  });

  it('fails a stored message whose headers could split the request, without sending it', async () => {
    const executionId = randomUUID();
    const [messageId] = await harness.fixture.enqueue(executionId, [
      { url: `${harness.receiver.url}/injected`, headers: { authorization: 'Bearer x\r\nx-injected: 1' } },
    ]);
    harness.startWorker();

    const record = await harness.fixture.settled(executionId, messageId!);
    expect(record.status).toBe('failed');
    expect(record.attempts[0]).toMatchObject({ statusCode: null, error: 'request headers are not valid' });
    expect(harness.receiver.received).toHaveLength(0);
  });
});
