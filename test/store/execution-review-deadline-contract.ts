import { describe, expect, it } from 'vitest';
import type { PendingHumanInput } from '../../src/domain/execution.ts';
import { at, newExecution, taskOutput } from './store-fixtures.ts';
import type { StoreHarness } from './store-harness.ts';

export function describeExecutionReviewDeadlineContract(harness: StoreHarness): void {
  describe('review deadlines', () => {
    it('keeps a pending review’s deadline and lists the paused executions whose deadline passed, earliest first', async () => {
      const store = await harness.open();
      const paused = async (deadlineAt: number | null): Promise<string> => {
        const { execution } = await store.createExecution(newExecution());
        const pending: PendingHumanInput = {
          taskId: 'review',
          attempt: 1,
          output: taskOutput('review'),
          ...(deadlineAt === null
            ? {}
            : { deadline: { at: at(deadlineAt), outcome: { approve: false, feedback: 'Too late' } } }),
        };
        const step = { executionId: execution.id, now: at(1) };
        await store.applyChange({ ...step, fromStates: ['PENDING'], state: 'RUNNING' });
        await store.applyChange({ ...step, fromStates: ['RUNNING'], state: 'PAUSED', pending });
        return execution.id;
      };
      const late = await paused(30);
      const early = await paused(20);
      await paused(null);
      const later = await paused(40);

      expect((await store.getExecution(early))?.pending?.deadline).toEqual({
        at: at(20),
        outcome: { approve: false, feedback: 'Too late' },
      });
      expect(await store.listDueReviews(at(19), 10)).toEqual([]);
      expect(await store.listDueReviews(at(30), 10)).toEqual([early, late]);
      expect(await store.listDueReviews(at(100), 1)).toEqual([early]);

      // Answered (or cancelled): the deadline goes with the pending review.
      await store.applyChange({
        executionId: early,
        fromStates: ['PAUSED'],
        expectPending: { taskId: 'review', attempt: 1 },
        state: 'PENDING',
        pending: null,
        now: at(31),
      });
      await store.applyChange({
        executionId: later,
        fromStates: ['PAUSED'],
        state: 'REVOKED',
        pending: null,
        now: at(31),
      });
      expect(await store.listDueReviews(at(100), 10)).toEqual([late]);
    });

    it("keeps a kickoff's own review deadline with the execution", async () => {
      const store = await harness.open();
      const reviewDeadline = { afterMs: 1_800_000, outcome: { approve: true } } as const;
      const { execution } = await store.createExecution(newExecution({ reviewDeadline }));
      expect(execution.reviewDeadline).toEqual(reviewDeadline);
      expect((await store.getExecution(execution.id))?.reviewDeadline).toEqual(reviewDeadline);
      const plain = await store.createExecution(newExecution());
      expect(plain.execution).not.toHaveProperty('reviewDeadline');
    });
  });
}
