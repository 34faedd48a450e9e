import { describe, expect, it } from 'vitest';
import type { PendingHumanInput } from '../../src/domain/execution.ts';
import { anyLogEntry, at, newExecution, taskOutput, tokenRecord } from './store-fixtures.ts';
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

    it('keeps a token’s daily budget, and sums what its executions’ logged model calls spent in a time range', async () => {
      const store = await harness.open();
      const token = await store.createToken(
        tokenRecord({ id: 'token-daily', kind: 'user', userId: 'u', dailyBudget: { tokens: 5000 } }),
      );
      expect((await store.findActiveToken(token.hash))?.dailyBudget).toEqual({ tokens: 5000 });

      const owner = { tokenId: 'token-daily', userId: 'u' };
      const { execution } = await store.createExecution({
        ...newExecution({ owner }),
        dailyBudget: { tokens: 5000 },
      });
      expect((await store.getExecution(execution.id))?.dailyBudget).toEqual({ tokens: 5000 });
      expect((await store.getExecution(execution.id))?.budget).toBeUndefined();
      const { execution: others } = await store.createExecution(newExecution());
      const call = (usage: Record<string, unknown>) =>
        anyLogEntry('model-call-end', {
          task_id: 'research',
          attempt: 1,
          model: 'm',
          text: '',
          tool_calls: [],
          usage,
        });
      const log = async (
        id: string,
        second: number,
        usage: Record<string, unknown>,
        from = 'RUNNING' as const,
      ) => store.applyChange({ executionId: id, fromStates: [from], events: [call(usage)], now: at(second) });
      for (const id of [execution.id, others.id]) {
        await store.applyChange({ executionId: id, fromStates: ['PENDING'], state: 'RUNNING', now: at(1) });
      }
      const priced = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110, cost_usd: 0.25 };
      const unpriced = { prompt_tokens: 200, completion_tokens: 20, total_tokens: 220, unpriced: true };
      await log(execution.id, 10, priced);
      await log(execution.id, 20, unpriced);
      await log(execution.id, 30, priced);
      await log(others.id, 20, priced);

      expect(await store.tokenSpend('token-daily', at(10), at(30))).toEqual({
        tokens: 330,
        costUsd: 0.25,
        unpricedRequests: 1,
      });
      expect(await store.tokenSpend('token-daily', at(0), at(100))).toEqual({
        tokens: 440,
        costUsd: 0.5,
        unpricedRequests: 1,
      });
      expect(await store.tokenSpend('no-such-token', at(0), at(100))).toEqual({
        tokens: 0,
        costUsd: 0,
        unpricedRequests: 0,
      });
    });
  });
}
