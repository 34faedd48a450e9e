import { describe, expect, it } from 'vitest';
import type { ExecutionChange, Store } from '../../src/store/store.ts';
import type { StoreHarness } from './store-harness.ts';
import { at, newExecution } from './store-fixtures.ts';

/** A step of a running execution by `owner`, holding its lease until `until` seconds (null releases it). */
function step(executionId: string, owner: string, now: number, until: number | null): ExecutionChange {
  return {
    executionId,
    fromStates: ['PENDING', 'RUNNING'],
    state: 'RUNNING',
    events: [{ type: 'task-start', data: { owner } }],
    lease: { owner, until: until === null ? null : at(until) },
    now: at(now),
  };
}

async function started(store: Store, owner: string, until: number): Promise<string> {
  const { execution } = await store.createExecution(newExecution());
  expect(await store.applyChange(step(execution.id, owner, 0, until))).not.toBeNull();
  return execution.id;
}

export function describeExecutionLeaseContract(harness: StoreHarness): void {
  describe('execution leases', () => {
    it('lets only the holder change an execution while its lease is live, anyone once it has run out', async () => {
      const store = await harness.open();
      const id = await started(store, 'process-a', 10);

      expect(await store.applyChange(step(id, 'process-b', 5, 15))).toBeNull();
      expect(await store.applyChange(step(id, 'process-a', 6, 16))).not.toBeNull();
      expect(await store.applyChange(step(id, 'process-b', 15, 25))).toBeNull();
      // Expired at 16: process-b takes over, and process-a's next change is refused.
      expect(await store.applyChange(step(id, 'process-b', 16, 26))).not.toBeNull();
      expect(await store.applyChange(step(id, 'process-a', 17, 27))).toBeNull();

      const events = await store.listEvents(id, 0, 10);
      expect(events.map((event) => event.data.owner)).toEqual(['process-a', 'process-a', 'process-b']);
    });

    it('frees the execution at once when the holder releases its lease', async () => {
      const store = await harness.open();
      const id = await started(store, 'process-a', 10);
      expect(await store.applyChange(step(id, 'process-a', 1, null))).not.toBeNull();

      expect(await store.listUnleasedIds(['RUNNING'], at(2), 10)).toEqual([id]);
      expect(await store.applyChange(step(id, 'process-b', 2, 12))).not.toBeNull();
    });

    it('leaves changes without a lease to their other guards, and renews only running executions', async () => {
      const store = await harness.open();
      const id = await started(store, 'process-a', 10);
      const cancelled = await store.applyChange({
        executionId: id,
        fromStates: ['RUNNING'],
        state: 'REVOKED',
        now: at(1),
      });
      expect(cancelled?.state).toBe('REVOKED');
      expect(await store.applyChange(step(id, 'process-a', 2, 12))).toBeNull();
      // The holder learns at its next renewal that the execution is no longer its to run.
      expect(await store.renewLeases('process-a', [id], at(20))).toEqual([]);
    });

    it('lists executions whose lease is free or run out, and renews and releases by owner', async () => {
      const store = await harness.open();
      const mine = await started(store, 'process-a', 10);
      const theirs = await started(store, 'process-b', 10);
      const { execution: waiting } = await store.createExecution(newExecution());

      expect(await store.listUnleasedIds(['PENDING', 'RUNNING'], at(5), 10)).toEqual([waiting.id]);

      expect(await store.renewLeases('process-a', [mine, theirs], at(30))).toEqual([mine]);
      expect(new Set(await store.listUnleasedIds(['PENDING', 'RUNNING'], at(20), 10))).toEqual(
        new Set([theirs, waiting.id]),
      );
      expect(await store.applyChange(step(mine, 'process-b', 20, 40))).toBeNull();

      await store.releaseLeases('process-a');
      expect(new Set(await store.listUnleasedIds(['PENDING', 'RUNNING'], at(6), 10))).toEqual(
        new Set([mine, waiting.id]),
      );
    });
  });
}
