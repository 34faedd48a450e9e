import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.ts';
import { describeExecutionChangeContract } from './execution-change-contract.ts';
import { describeExecutionClaimContract } from './execution-claim-contract.ts';
import { describeExecutionFairShareContract } from './execution-fair-share-contract.ts';
import { describeExecutionReviewDeadlineContract } from './execution-review-deadline-contract.ts';
import { describeExecutionBudgetContract } from './execution-budget-contract.ts';
import { describeExecutionFlowStateContract } from './execution-flow-state-contract.ts';
import { describeExecutionLeaseContract } from './execution-lease-contract.ts';
import { describeExecutionListingContract } from './execution-listing-contract.ts';
import { describeExecutionStoreContract } from './execution-store-contract.ts';
import { describeLivenessContract } from './liveness-contract.ts';
import { describeOutboxStoreContract } from './outbox-store-contract.ts';
import { at, newExecution, outboxMessage, taskOutput, tokenRecord, anyLogEntry } from './store-fixtures.ts';
import { describeRetentionStoreContract } from './retention-store-contract.ts';
import type { StoreHarness, StoreOpenOptions } from './store-harness.ts';
import { describeTokenStoreContract } from './token-store-contract.ts';
import { describeCrewStoreContract } from './crew-store-contract.ts';

/**
 * The behaviour every store adapter must show. `open` opens a store on the suite's database (each call reaches the
 * same data); `cleanup` runs after each test, once its stores are closed, and empties that database.
 */
export function describeStoreContract(
  name: string,
  open: (options: StoreOpenOptions) => Promise<Store>,
  cleanup: () => Promise<void>,
): void {
  describe(name, () => {
    const opened: Store[] = [];
    const harness: StoreHarness = {
      open: async (options = {}) => {
        const store = await open(options);
        opened.push(store);
        await store.migrate();
        // As in a running process: this holds the process's liveness lock, so its leases count.
        await store.feed.start({ changed: () => {}, resync: () => {} });
        return store;
      },
    };

    afterEach(async () => {
      // A test may have closed a store itself already.
      for (const store of opened.splice(0)) await store.close().catch(() => undefined);
      await cleanup();
    });

    it('migrates idempotently, also from two stores at once', async () => {
      const first = await harness.open();
      const { execution } = await first.createExecution(newExecution());
      await first.migrate();
      const second = await harness.open();
      await Promise.all([first.migrate(), second.migrate()]);
      expect(await second.getExecution(execution.id)).toEqual(execution);
    });

    it('keeps executions, events, tokens and outbox messages across close and reopen', async () => {
      const store = await harness.open();
      const { execution } = await store.createExecution(newExecution());
      const output = taskOutput('research');
      const message = outboxMessage('https://hooks.example.com/task');
      const changed = await store.applyChange({
        executionId: execution.id,
        fromStates: ['PENDING'],
        state: 'RUNNING',
        appendOutput: output,
        events: [anyLogEntry('task-end', { task_id: 'research' })],
        outbox: [message],
        now: at(1),
      });
      const token = await store.createToken(tokenRecord());
      await store.close();

      const reopened = await harness.open();
      expect(await reopened.getExecution(execution.id)).toEqual(changed);
      expect(await reopened.listEvents(execution.id, 0, 10)).toEqual([
        {
          executionId: execution.id,
          sequence: 1,
          type: 'task-end',
          data: { task_id: 'research' },
          createdAt: at(1),
        },
      ]);
      expect(await reopened.findActiveToken(token.hash)).toEqual(token);
      expect((await reopened.claimDueMessages(at(1), 10, 1000)).map((claimed) => claimed.id)).toEqual([
        message.id,
      ]);
    });

    it('answers ping while open and rejects it once closed', async () => {
      const store = await harness.open();
      await expect(store.ping()).resolves.toBeUndefined();
      await store.close();
      await expect(store.ping()).rejects.toThrow();
    });

    describeExecutionStoreContract(harness);
    describeExecutionChangeContract(harness);
    describeExecutionListingContract(harness);
    describeExecutionLeaseContract(harness);
    describeExecutionClaimContract(harness);
    describeExecutionFairShareContract(harness);
    describeExecutionReviewDeadlineContract(harness);
    describeExecutionBudgetContract(harness);
    describeExecutionFlowStateContract(harness);
    describeLivenessContract(harness);
    describeTokenStoreContract(harness);
    describeCrewStoreContract(harness);
    describeOutboxStoreContract(harness);
    describeRetentionStoreContract(harness);
  });
}
