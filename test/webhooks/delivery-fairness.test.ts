import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { deliveryTargetOf } from '../../src/domain/delivery-target.ts';
import { startScriptedReceiver } from '../support/scripted-receiver.ts';
import { until } from '../support/until.ts';
import { useDeliveryHarness } from './delivery-harness.ts';

const harness = useDeliveryHarness();

describe('webhook delivery across receivers', () => {
  it('delivers every message to a healthy receiver while a slow one holds only its share of the slots', async () => {
    const slow = harness.receiver;
    const held: ServerResponse[] = [];
    slow.answer('/slow', (response) => held.push(response));
    const fast = await startScriptedReceiver();
    try {
      // The slow receiver's messages are older, so without a per-target share they would take every slot.
      const slowMessages = 30;
      for (let index = 0; index < slowMessages; index += 1) {
        await harness.fixture.enqueue(randomUUID(), [{ url: `${slow.url}/slow` }]);
      }
      const fastMessages: [string, string][] = [];
      for (let index = 0; index < 20; index += 1) {
        const executionId = randomUUID();
        const [messageId] = await harness.fixture.enqueue(executionId, [{ url: `${fast.url}/fast` }]);
        fastMessages.push([executionId, messageId!]);
      }
      const worker = harness.startWorker({ concurrency: 8, perTargetConcurrency: 3, timeoutMs: 600_000 });

      for (const [executionId, messageId] of fastMessages) {
        expect((await harness.fixture.settled(executionId, messageId)).status).toBe('delivered');
      }
      expect(fast.on('/fast')).toHaveLength(20);
      // Meanwhile the slow receiver has its three requests open, none answered, and nothing more.
      await until(() => held.length === 3);
      expect(slow.on('/slow')).toHaveLength(3);
      expect(held.every((response) => !response.writableEnded)).toBe(true);

      // Stopping does not wait for the slow receiver: the attempts end, unrecorded, and stay pending.
      await worker.stop();
      for (const payload of slow.on('/slow').map((request) => request.body as { kickoff_id: string })) {
        const records = await harness.fixture.store.listDeliveries(payload.kickoff_id);
        expect(records.map((record) => [record.status, record.attempts.length])).toEqual([['pending', 0]]);
      }
    } finally {
      for (const response of held) response.destroy();
      await fast.close();
    }
  });

  it('names a target by scheme, host and port, whatever the case, path or query', () => {
    expect(deliveryTargetOf('HTTPS://Hooks.Example.com:8443/a/b?c=d')).toBe('https://hooks.example.com:8443');
    expect(deliveryTargetOf('http://127.0.0.1:9000')).toBe('http://127.0.0.1:9000');
    expect(deliveryTargetOf('http://127.0.0.1:9001/x')).not.toBe(deliveryTargetOf('http://127.0.0.1:9000/x'));
  });
});
