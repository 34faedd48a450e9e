import { describe, expect, it } from 'vitest';
import type { ExecutionState } from '../../src/domain/execution.ts';
import type { Store } from '../../src/store/store.ts';
import type { StoreHarness } from './store-harness.ts';
import { at, newExecution, outboxMessage, anyLogEntry } from './store-fixtures.ts';

/** An execution created at `createdAt` seconds that reached `state` at `endedAt`, with an event and a message. */
async function executionEnded(
  store: Store,
  state: ExecutionState,
  createdAt: number,
  endedAt: number,
): Promise<string> {
  const { execution } = await store.createExecution(newExecution({ createdAt: at(createdAt) }));
  await store.applyChange({
    executionId: execution.id,
    fromStates: ['PENDING'],
    state: state === 'PENDING' ? undefined : 'RUNNING',
    events: [anyLogEntry('execution-end', { state })],
    outbox: [outboxMessage('https://hooks.example.com/crew')],
    now: at(endedAt),
  });
  if (state !== 'PENDING' && state !== 'RUNNING') {
    await store.applyChange({ executionId: execution.id, fromStates: ['RUNNING'], state, now: at(endedAt) });
  }
  return execution.id;
}

export function describeRetentionStoreContract(harness: StoreHarness): void {
  describe('retention', () => {
    it('deletes finished executions that ended before the cutoff, with their events and messages, and nothing else', async () => {
      const store = await harness.open();
      const old = [
        await executionEnded(store, 'SUCCESS', 0, 10),
        await executionEnded(store, 'FAILED', 0, 20),
        await executionEnded(store, 'REVOKED', 0, 30),
      ];
      const kept = [
        await executionEnded(store, 'SUCCESS', 0, 100), // ended after the cutoff, though created before
        await executionEnded(store, 'SUCCESS', 60, 70),
        await executionEnded(store, 'PAUSED', 0, 10), // waiting for a person: never deleted
        await executionEnded(store, 'RUNNING', 0, 10),
        await executionEnded(store, 'PENDING', 0, 10),
      ];

      const deleted = await store.deleteFinishedBefore(at(50), 100);

      expect([...deleted].sort()).toEqual([...old].sort());
      for (const id of old) {
        expect(await store.getExecution(id)).toBeNull();
        expect(await store.listEvents(id, 0, 10)).toEqual([]);
        expect(await store.listDeliveries(id)).toEqual([]);
      }
      for (const id of kept) {
        expect(await store.getExecution(id)).not.toBeNull();
        expect(await store.listEvents(id, 0, 10)).toHaveLength(1);
      }
      const finishedAfter = kept[1]!;
      expect(await store.deleteFinishedBefore(at(71), 100)).toEqual([finishedAfter]);
    });

    it('deletes at most the limit at a time', async () => {
      const store = await harness.open();
      for (let index = 0; index < 5; index += 1) await executionEnded(store, 'SUCCESS', 0, 1);
      expect(await store.deleteFinishedBefore(at(2), 2)).toHaveLength(2);
      expect(await store.deleteFinishedBefore(at(2), 2)).toHaveLength(2);
      expect(await store.deleteFinishedBefore(at(2), 2)).toHaveLength(1);
      expect(await store.deleteFinishedBefore(at(2), 2)).toHaveLength(0);
    });
  });
}
