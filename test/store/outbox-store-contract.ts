import { describe, expect, it } from 'vitest';
import { isCrewdError } from '../../src/domain/errors.ts';
import type { StoreHarness } from './store-harness.ts';
import { at, newExecution, outboxMessage, queueMessages, rejectionOf, t0 } from './store-fixtures.ts';

const taskUrl = 'https://hooks.example.com/task';
const crewUrl = 'https://hooks.example.com/crew';
const lease = 30_000;

const ids = (messages: readonly { readonly id: string }[]) => messages.map((message) => message.id).sort();

export function describeOutboxStoreContract(harness: StoreHarness): void {
  describe('outbox', () => {
    it('stores a change’s messages pending, due at the change’s time', async () => {
      const store = await harness.open();
      const message = outboxMessage(taskUrl, {
        kind: 'human_input',
        payload: { event: 'human_input_requested', attempt: 1 },
        headers: { authorization: 'Bearer secret' },
      });
      const executionId = await queueMessages(store, [message], at(10));

      expect(await store.claimDueMessages(new Date(at(10).getTime() - 1), 10, lease)).toEqual([]);
      expect(await store.claimDueMessages(at(10), 10, lease)).toEqual([
        { ...message, executionId, status: 'pending', attempts: 0, nextAttemptAt: at(10), createdAt: at(10) },
      ]);
    });

    it('hands out only the oldest pending message of each execution and URL', async () => {
      const store = await harness.open();
      const first = outboxMessage(taskUrl);
      const second = outboxMessage(taskUrl);
      const crew = outboxMessage(crewUrl);
      const executionId = await queueMessages(store, [first, second, crew]);
      const otherExecution = outboxMessage(taskUrl);
      await queueMessages(store, [otherExecution]);

      expect(ids(await store.claimDueMessages(t0, 10, lease))).toEqual(ids([first, crew, otherExecution]));
      await store.recordDelivery(
        { messageId: first.id, attempt: 1, at: at(1), statusCode: 200, error: null, durationMs: 12 },
        { kind: 'delivered' },
      );
      const next = await store.claimDueMessages(at(1), 10, lease);
      expect(next.map((message) => [message.id, message.executionId])).toEqual([[second.id, executionId]]);
    });

    it('does not hand out a leased message again until its lease ends', async () => {
      const store = await harness.open();
      const message = outboxMessage(taskUrl);
      await queueMessages(store, [message]);

      expect(ids(await store.claimDueMessages(t0, 10, 1000))).toEqual([message.id]);
      expect(await store.claimDueMessages(new Date(t0.getTime() + 999), 10, 1000)).toEqual([]);
      expect(ids(await store.claimDueMessages(at(1), 10, 1000))).toEqual([message.id]);
    });

    it('claims at most the limit, most overdue first', async () => {
      const store = await harness.open();
      const late = outboxMessage(taskUrl);
      const early = outboxMessage(taskUrl);
      const middle = outboxMessage(taskUrl);
      await queueMessages(store, [late], at(3));
      await queueMessages(store, [early], at(1));
      await queueMessages(store, [middle], at(2));

      expect(ids(await store.claimDueMessages(at(5), 2, lease))).toEqual(ids([early, middle]));
      expect(ids(await store.claimDueMessages(at(5), 2, lease))).toEqual([late.id]);
    });

    it('hands a target no more than its quota, counting what is in flight to it, so other targets get slots', async () => {
      const store = await harness.open();
      // Spelled three ways: the target is the scheme, host and port, whatever the case and path.
      const slow = [
        outboxMessage('HTTPS://Slow.Example.com:8443/a'),
        outboxMessage('https://slow.example.com:8443/b?x=1'),
        outboxMessage('https://slow.example.com:8443'),
      ];
      for (const [index, message] of slow.entries()) await queueMessages(store, [message], at(index));
      const fast = [outboxMessage('https://fast.example.com/a'), outboxMessage('https://fast.example.com/b')];
      for (const message of fast) await queueMessages(store, [message], at(4));
      const busy = new Map([['https://slow.example.com:8443', 1]]);

      const claimed = await store.claimDueMessages(at(5), 3, lease, { perTarget: 2, busy });
      expect(ids(claimed)).toEqual(ids([slow[0]!, ...fast]));
      // The fast target's quota is now spent too, by what this claim handed out: nothing more without a new count.
      const later = new Map([
        ['https://slow.example.com:8443', 2],
        ['https://fast.example.com', 2],
      ]);
      expect(await store.claimDueMessages(at(5), 3, lease, { perTarget: 2, busy: later })).toEqual([]);
      expect(ids(await store.claimDueMessages(at(5), 3, lease))).toEqual(ids([slow[1]!, slow[2]!]));
    });

    it('records attempts: a retry waits for its time, delivered and failed messages are never claimed again', async () => {
      const store = await harness.open();
      const retried = outboxMessage(taskUrl);
      const delivered = outboxMessage(crewUrl);
      const executionId = await queueMessages(store, [retried, delivered]);
      const failedBefore = await store.countFailedMessages();
      await store.claimDueMessages(t0, 10, lease);

      await store.recordDelivery(
        {
          messageId: retried.id,
          attempt: 1,
          at: at(1),
          statusCode: 503,
          error: 'Status 503',
          durationMs: 40,
        },
        { kind: 'retry', at: at(60) },
      );
      await store.recordDelivery(
        { messageId: delivered.id, attempt: 1, at: at(1), statusCode: 204, error: null, durationMs: 8.5 },
        { kind: 'delivered' },
      );
      expect(await store.claimDueMessages(at(59), 10, lease)).toEqual([]);
      const [again] = await store.claimDueMessages(at(60), 10, lease);
      expect(again).toMatchObject({ id: retried.id, status: 'pending', attempts: 1, nextAttemptAt: at(60) });

      await store.recordDelivery(
        {
          messageId: retried.id,
          attempt: 2,
          at: at(61),
          statusCode: null,
          error: 'Timed out',
          durationMs: 10_000,
        },
        { kind: 'failed' },
      );
      expect(await store.claimDueMessages(at(100_000), 10, lease)).toEqual([]);
      expect(await store.countFailedMessages()).toBe(failedBefore + 1);

      expect(await store.listDeliveries(executionId)).toEqual([
        {
          id: retried.id,
          kind: 'task',
          url: taskUrl,
          status: 'failed',
          createdAt: t0,
          attempts: [
            { attempt: 1, at: at(1), statusCode: 503, error: 'Status 503', durationMs: 40 },
            { attempt: 2, at: at(61), statusCode: null, error: 'Timed out', durationMs: 10_000 },
          ],
        },
        {
          id: delivered.id,
          kind: 'task',
          url: crewUrl,
          status: 'delivered',
          createdAt: t0,
          attempts: [{ attempt: 1, at: at(1), statusCode: 204, error: null, durationMs: 8.5 }],
        },
      ]);
    });

    it('lists an execution’s messages oldest first, without their headers', async () => {
      const store = await harness.open();
      const secret = outboxMessage(taskUrl, {
        kind: 'human_input',
        headers: { authorization: 'Basic c2VjcmV0' },
      });
      const step = outboxMessage(taskUrl, { kind: 'step' });
      const { execution } = await store.createExecution(newExecution());
      await store.applyChange({
        executionId: execution.id,
        fromStates: ['PENDING'],
        outbox: [secret],
        now: at(1),
      });
      await store.applyChange({
        executionId: execution.id,
        fromStates: ['PENDING'],
        outbox: [step],
        now: at(2),
      });

      const deliveries = await store.listDeliveries(execution.id);
      expect(deliveries).toEqual([
        {
          id: secret.id,
          kind: 'human_input',
          url: taskUrl,
          status: 'pending',
          createdAt: at(1),
          attempts: [],
        },
        { id: step.id, kind: 'step', url: taskUrl, status: 'pending', createdAt: at(2), attempts: [] },
      ]);
      expect(JSON.stringify(deliveries)).not.toContain('c2VjcmV0');
      expect(await store.listDeliveries('no-such-execution')).toEqual([]);
    });

    it('rejects an attempt for an unknown message', async () => {
      const store = await harness.open();
      const attempt = {
        messageId: 'no-such-message',
        attempt: 1,
        at: t0,
        statusCode: 200,
        error: null,
        durationMs: 1,
      };
      const error = await rejectionOf(store.recordDelivery(attempt, { kind: 'delivered' }));
      expect(isCrewdError(error) && error.code).toBe('NOT_FOUND');
    });

    it('never hands the same message to two stores claiming at once', async () => {
      const first = await harness.open();
      const second = await harness.open();
      const messages = Array.from({ length: 20 }, (_, index) => outboxMessage(`${taskUrl}/${index}`));
      await queueMessages(first, messages);

      const claims = await Promise.all([
        first.claimDueMessages(t0, 15, lease),
        second.claimDueMessages(t0, 15, lease),
        first.claimDueMessages(t0, 15, lease),
      ]);

      const claimed = claims.flat().map((message) => message.id);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect(claimed.sort()).toEqual(ids(messages));
    });
  });
}
