import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach } from 'vitest';
import type { DeliveryWorker, DeliveryWorkerOptions } from '../../src/webhooks/delivery-worker.ts';
import { createDeliveryWorker } from '../../src/webhooks/delivery-worker.ts';
import { openOutboxFixture } from './outbox-fixture.ts';
import type { OutboxFixture } from './outbox-fixture.ts';
import { startScriptedReceiver } from '../support/scripted-receiver.ts';
import type { ScriptedReceiver } from '../support/scripted-receiver.ts';

export const webhookSecret = `whsec_${randomBytes(32).toString('base64')}`;

export interface DeliveryHarness {
  readonly fixture: OutboxFixture;
  /** The current receiver; a test may replace it (a receiver that comes back on the same port). */
  receiver: ScriptedReceiver;
  /** A worker on the fixture's store with a short schedule, stopped after the test. */
  startWorker(overrides?: Partial<DeliveryWorkerOptions>): DeliveryWorker;
}

/** A fresh SQLite store and receiver for each test, and workers that are stopped after it. */
export function useDeliveryHarness(): DeliveryHarness {
  let fixture: OutboxFixture | undefined;
  let receiver: ScriptedReceiver | undefined;
  const workers: DeliveryWorker[] = [];

  beforeEach(async () => {
    fixture = await openOutboxFixture();
    receiver = await startScriptedReceiver();
  });

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
    await receiver?.close();
    await fixture?.cleanup();
  });

  return {
    get fixture() {
      return fixture!;
    },
    get receiver() {
      return receiver!;
    },
    set receiver(next: ScriptedReceiver) {
      receiver = next;
    },
    startWorker(overrides = {}) {
      const worker = createDeliveryWorker({
        store: fixture!.store,
        secret: webhookSecret,
        allowPrivate: true,
        schedule: [0.05, 0.05],
        clock: () => new Date(),
        timeoutMs: 2000,
        pollIntervalMs: 20,
        ...overrides,
      });
      workers.push(worker);
      worker.start();
      return worker;
    },
  };
}
