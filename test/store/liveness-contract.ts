import { describe, expect, it } from 'vitest';
import type { ClaimedExecution, OutboxMessage } from '../../src/store/store.ts';
import { until } from '../support/until.ts';
import { at, newExecution, outboxMessage, queueMessages } from './store-fixtures.ts';
import type { StoreHarness } from './store-harness.ts';

/**
 * A process's liveness lock, held by its store's feed from start to close: its leases hold while it lives, and go
 * at once when it is gone. Closing a store without releasing its leases ends the lock the way a killed process's
 * ends (PostgreSQL: its connection closes; SQLite: its lock file's connection closes).
 */
export function describeLivenessContract(harness: StoreHarness): void {
  describe('process liveness', () => {
    it('takes over at once, though its lease is live, the execution of a process whose liveness lock is gone', async () => {
      const gone = await harness.open({ processId: 'process-gone' });
      const survivor = await harness.open({ processId: 'process-survivor' });
      const { execution } = await gone.createExecution(
        newExecution({ lease: { owner: 'process-gone', until: at(3600) } }),
      );
      const running = await gone.applyChange({
        executionId: execution.id,
        fromStates: ['PENDING'],
        state: 'RUNNING',
        lease: { owner: 'process-gone', until: at(3600) },
        now: at(1),
      });
      expect(running?.state).toBe('RUNNING');
      // Alive: its lease holds until it runs out.
      expect(await survivor.claimExecutions('process-survivor', at(2), at(60), 10)).toEqual([]);

      await gone.close();

      let claimed: readonly ClaimedExecution[] = [];
      await until(async () => {
        claimed = await survivor.claimExecutions('process-survivor', at(3), at(60), 10);
        return claimed.length > 0;
      });
      expect(claimed).toEqual([{ id: execution.id, state: 'RUNNING', takenFrom: 'process-gone' }]);
      // Now the survivor's, whose own lock is held.
      expect(await survivor.claimExecutions('process-survivor', at(4), at(60), 10)).toEqual([]);
      const other = await harness.open({ processId: 'process-other' });
      expect(await other.claimExecutions('process-other', at(5), at(60), 10)).toEqual([]);
    });

    it('hands out again at once the webhook messages a process that is gone had claimed', async () => {
      const gone = await harness.open({ processId: 'process-gone' });
      const survivor = await harness.open({ processId: 'process-survivor' });
      await queueMessages(gone, [outboxMessage('https://receiver.example/hook')], at(0));
      const [leased] = await gone.claimDueMessages(at(1), 10, 60_000);
      expect(leased).toBeDefined();
      expect(await survivor.claimDueMessages(at(2), 10, 60_000)).toEqual([]);

      await gone.close();

      let claimed: readonly OutboxMessage[] = [];
      await until(async () => {
        claimed = await survivor.claimDueMessages(at(3), 10, 60_000);
        return claimed.length > 0;
      });
      expect(claimed.map((message) => message.id)).toEqual([leased?.id]);
      // Now leased by the survivor, which lives.
      const other = await harness.open({ processId: 'process-other' });
      expect(await other.claimDueMessages(at(4), 10, 60_000)).toEqual([]);
    });
  });
}
