import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.ts';
import { at, newExecution } from './store-fixtures.ts';
import type { StoreHarness } from './store-harness.ts';

/** A store speaking for a live process: it holds that process's liveness lock. */
function liveProcess(harness: StoreHarness, processId: string): Promise<Store> {
  return harness.open({ processId });
}

export function describeExecutionClaimContract(harness: StoreHarness): void {
  describe('execution claims', () => {
    it('claims waiting and abandoned executions oldest first, up to the limit, naming whose lease it took', async () => {
      const a = await liveProcess(harness, 'process-a');
      const b = await liveProcess(harness, 'process-b');
      const first = (await a.createExecution(newExecution({ createdAt: at(1) }))).execution.id;
      // Leased by a live process until 100: not claimable before then.
      const held = (
        await a.createExecution(
          newExecution({ createdAt: at(2), lease: { owner: 'process-a', until: at(100) } }),
        )
      ).execution.id;
      const expired = (
        await a.createExecution(
          newExecution({ createdAt: at(3), lease: { owner: 'process-a', until: at(5) } }),
        )
      ).execution.id;
      const last = (await a.createExecution(newExecution({ createdAt: at(4) }))).execution.id;

      const claimed = await b.claimExecutions('process-b', at(10), at(40), 2);
      expect(claimed).toEqual([
        { id: first, state: 'PENDING', takenFrom: null },
        { id: expired, state: 'PENDING', takenFrom: 'process-a' },
      ]);
      expect(await b.claimExecutions('process-b', at(10), at(40), 10)).toEqual([
        { id: last, state: 'PENDING', takenFrom: null },
      ]);
      // The claimed are now leased to process-b, which the holder's own writes must respect.
      expect(await a.claimExecutions('process-a', at(11), at(41), 10)).toEqual([]);
      const step = { fromStates: ['PENDING'] as const, state: 'RUNNING' as const, now: at(12) };
      const lease = { owner: 'process-a', until: at(50) };
      expect(await a.applyChange({ ...step, executionId: first, lease })).toBeNull();
      expect(await a.applyChange({ ...step, executionId: held, lease })).not.toBeNull();
    });

    it('never hands one execution to two processes claiming at once', async () => {
      const a = await liveProcess(harness, 'process-a');
      const b = await liveProcess(harness, 'process-b');
      for (let index = 0; index < 20; index += 1)
        await a.createExecution(newExecution({ createdAt: at(index) }));

      const [byA, byB] = await Promise.all([
        a.claimExecutions('process-a', at(30), at(60), 15),
        b.claimExecutions('process-b', at(30), at(60), 15),
      ]);

      const ids = [...byA, ...byB].map((claimed) => claimed.id);
      expect(ids).toHaveLength(20);
      expect(new Set(ids).size).toBe(20);
    });

    it('never claims what the claimer has in hand, nor its own leases for want of its own liveness lock', async () => {
      const a = await liveProcess(harness, 'process-a');
      const lapsed = (
        await a.createExecution(
          newExecution({ createdAt: at(1), lease: { owner: 'process-a', until: at(5) } }),
        )
      ).execution.id;
      // Its lease ran out while the claimer runs it: the claim leaves it to the run.
      expect(await a.claimExecutions('process-a', at(10), at(40), 10, [lapsed])).toEqual([]);
      expect(await a.claimExecutions('process-a', at(10), at(40), 10)).toEqual([
        { id: lapsed, state: 'PENDING', takenFrom: 'process-a' },
      ]);

      // A process whose lock is gone for a moment (the database restarted, it has not reconnected yet) does not
      // take over its own executions as a dead process's.
      const reconnecting = (
        await a.createExecution(
          newExecution({ createdAt: at(2), lease: { owner: 'process-reconnecting', until: at(100) } }),
        )
      ).execution.id;
      expect(await a.claimExecutions('process-reconnecting', at(11), at(40), 10)).toEqual([]);
      // Another process does, as it would a dead one's.
      expect(await a.claimExecutions('process-a', at(12), at(40), 10)).toEqual([
        { id: reconnecting, state: 'PENDING', takenFrom: 'process-reconnecting' },
      ]);
    });

    it("claims only the executions of the crews the claimer serves, including a dead process's", async () => {
      const a = await liveProcess(harness, 'process-a');
      const briefs = (await a.createExecution(newExecution({ createdAt: at(1), crew: 'briefs' }))).execution
        .id;
      const notes = (await a.createExecution(newExecution({ createdAt: at(2), crew: 'notes' }))).execution.id;
      const orphaned = (
        await a.createExecution(
          newExecution({
            createdAt: at(3),
            crew: 'briefs',
            lease: { owner: 'process-gone', until: at(100) },
          }),
        )
      ).execution.id;

      expect(await a.claimExecutions('process-a', at(10), at(40), 10, [], { crews: ['notes'] })).toEqual([
        { id: notes, state: 'PENDING', takenFrom: null },
      ]);
      expect(await a.claimExecutions('process-a', at(11), at(40), 10, [], { crews: ['notes'] })).toEqual([]);
      expect(await a.claimExecutions('process-b', at(12), at(40), 10, [], { crews: ['briefs'] })).toEqual([
        { id: briefs, state: 'PENDING', takenFrom: null },
        { id: orphaned, state: 'PENDING', takenFrom: 'process-gone' },
      ]);
    });

    it("does not count another crew's waiting executions against a token's running limit", async () => {
      const a = await liveProcess(harness, 'process-a');
      for (const minute of [1, 2])
        await a.createExecution(newExecution({ createdAt: at(minute), crew: 'briefs' }));
      const notes = (await a.createExecution(newExecution({ createdAt: at(3), crew: 'notes' }))).execution.id;

      const options = { crews: ['notes'], runningPerToken: 2 };
      expect(await a.claimExecutions('process-a', at(10), at(40), 10, [], options)).toEqual([
        { id: notes, state: 'PENDING', takenFrom: null },
      ]);
      // Its one running (leased) execution counts: the briefs' process may start only one more.
      const briefs = await a.claimExecutions('process-b', at(11), at(40), 10, [], {
        crews: ['briefs'],
        runningPerToken: 2,
      });
      expect(briefs).toHaveLength(1);
    });

    it('leaves paused and finished executions alone', async () => {
      const a = await liveProcess(harness, 'process-a');
      const { execution } = await a.createExecution(newExecution());
      await a.applyChange({
        executionId: execution.id,
        fromStates: ['PENDING'],
        state: 'RUNNING',
        now: at(1),
      });
      await a.applyChange({
        executionId: execution.id,
        fromStates: ['RUNNING'],
        state: 'PAUSED',
        now: at(1),
      });

      expect(await a.claimExecutions('process-a', at(2), at(30), 10)).toEqual([]);
    });
  });
}
