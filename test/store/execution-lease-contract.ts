import { describe, expect, it } from 'vitest';
import type { ExecutionChange, Store } from '../../src/store/store.ts';
import type { StoreHarness } from './store-harness.ts';
import { at, newExecution, anyLogEntry } from './store-fixtures.ts';

/** A step of a running execution by `owner`, holding its lease until `until` seconds (null releases it). */
function step(executionId: string, owner: string, now: number, until: number | null): ExecutionChange {
  return {
    executionId,
    fromStates: ['PENDING', 'RUNNING'],
    state: 'RUNNING',
    events: [anyLogEntry('task-start', { owner })],
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
      expect(events.map((event) => (event.data as Record<string, unknown>).owner)).toEqual([
        'process-a',
        'process-a',
        'process-b',
      ]);
    });

    it('frees the execution at once when the holder releases its lease', async () => {
      const a = await harness.open({ processId: 'process-a' });
      const b = await harness.open({ processId: 'process-b' });
      const id = await started(a, 'process-a', 10);
      expect(await b.claimExecutions('process-b', at(1), at(11), 10)).toEqual([]);
      expect(await a.applyChange(step(id, 'process-a', 1, null))).not.toBeNull();

      expect(await b.claimExecutions('process-b', at(2), at(12), 10)).toEqual([
        { id, state: 'RUNNING', takenFrom: null },
      ]);
      expect(await b.applyChange(step(id, 'process-b', 2, 12))).not.toBeNull();
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

    it('hands out executions whose lease is free or run out, and renews and releases by owner', async () => {
      const a = await harness.open({ processId: 'process-a' });
      const b = await harness.open({ processId: 'process-b' });
      const c = await harness.open({ processId: 'process-c' });
      const mine = await started(a, 'process-a', 10);
      const theirs = await started(b, 'process-b', 10);
      const { execution: waiting } = await a.createExecution(newExecution());

      expect(await c.claimExecutions('process-c', at(5), at(100), 10)).toEqual([
        { id: waiting.id, state: 'PENDING', takenFrom: null },
      ]);

      expect(await a.renewLeases('process-a', [mine, theirs], at(30))).toEqual([mine]);
      expect(await c.claimExecutions('process-c', at(20), at(100), 10)).toEqual([
        { id: theirs, state: 'RUNNING', takenFrom: 'process-b' },
      ]);
      expect(await b.applyChange(step(mine, 'process-b', 20, 40))).toBeNull();

      await a.releaseLeases('process-a');
      expect(await c.claimExecutions('process-c', at(21), at(100), 10)).toEqual([
        { id: mine, state: 'RUNNING', takenFrom: null },
      ]);
    });
  });
}
