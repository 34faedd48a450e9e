import { describe, expect, it } from 'vitest';
import type { PendingHumanInput } from '../../src/domain/execution.ts';
import { at, newExecution, taskOutput } from './store-fixtures.ts';
import type { StoreHarness } from './store-harness.ts';

export function describeExecutionBudgetContract(harness: StoreHarness): void {
  describe('budgets', () => {
    it('keeps an execution’s budget, a budget pause with its spend, and the answers to it', async () => {
      const store = await harness.open();
      const { execution } = await store.createExecution({
        ...newExecution(),
        budget: { tokens: 1000, costUsd: 0.25 },
      });
      const { execution: unlimited } = await store.createExecution(newExecution());
      const pending: PendingHumanInput = {
        taskId: 'research',
        attempt: 1,
        output: taskOutput('research'),
        budget: {
          scope: 'execution',
          limit: { tokens: 1000, costUsd: 0.25 },
          spent: { tokens: 1050, costUsd: 0.2, unpricedRequests: 1 },
        },
      };
      const step = { executionId: execution.id, now: at(1) };
      await store.applyChange({ ...step, fromStates: ['PENDING'], state: 'RUNNING' });
      await store.applyChange({ ...step, fromStates: ['RUNNING'], state: 'PAUSED', pending });

      const paused = await store.getExecution(execution.id);
      expect(paused?.budget).toEqual({ tokens: 1000, costUsd: 0.25 });
      expect(paused?.pending).toEqual(pending);
      expect((await store.getExecution(unlimited.id))?.budget).toBeUndefined();

      const feedback = {
        taskId: 'research',
        attempt: 1,
        text: 'go on',
        approved: true,
        output: pending.output.output,
        budget: 'execution' as const,
      };
      await store.applyChange({
        ...step,
        fromStates: ['PAUSED'],
        expectPending: { taskId: 'research', attempt: 1 },
        state: 'PENDING',
        pending: null,
        appendFeedback: feedback,
      });
      expect((await store.getExecution(execution.id))?.feedback).toEqual([feedback]);
    });
  });
}
