import { describe, expect, it } from 'vitest';
import type { ExecutionState } from '../../src/domain/execution.ts';
import { isCrewdError } from '../../src/domain/errors.ts';
import type { ExecutionQuery, Store } from '../../src/store/store.ts';
import type { StoreHarness } from './store-harness.ts';
import { at, createInState, newExecution, rejectionOf } from './store-fixtures.ts';

/** Every page of a query, following `nextCursor` to the end. */
async function allPages(store: Store, query: ExecutionQuery): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listExecutions(cursor === undefined ? query : { ...query, cursor });
    pages.push(page.items.map((execution) => execution.id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return pages;
}

export function describeExecutionListingContract(harness: StoreHarness): void {
  describe('listing', () => {
    it('pages through 25 executions newest first, 10 at a time, ending with a null cursor', async () => {
      const store = await harness.open();
      const created: { id: string; createdAt: Date }[] = [];
      for (let index = 0; index < 25; index += 1) {
        // Pairs share a creation time, so the id decides their order.
        const createdAt = at(Math.floor(index / 2));
        const { execution } = await store.createExecution(newExecution({ createdAt }));
        created.push({ id: execution.id, createdAt });
      }
      const newestFirst = created
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
        .map((execution) => execution.id);

      const pages = await allPages(store, { limit: 10 });

      expect(pages.map((page) => page.length)).toEqual([10, 10, 5]);
      expect(pages.flat()).toEqual(newestFirst);
      expect((await store.listExecutions({ limit: 25 })).nextCursor).toBeNull();
      const firstPage = await store.listExecutions({ limit: 10 });
      expect(firstPage.items[0]).toEqual(await store.getExecution(newestFirst[0]!));
    });

    it('filters by state and by user, and pages within the filter', async () => {
      const store = await harness.open();
      const states: ExecutionState[] = ['RUNNING', 'PAUSED', 'SUCCESS'];
      const matching: string[] = [];
      for (let index = 0; index < 25; index += 1) {
        const state = states[index % 3]!;
        const userId = index % 2 === 0 ? 'user-a' : 'user-b';
        const id = await createInState(store, state, {
          createdAt: at(index),
          owner: { tokenId: `token-${userId}`, userId },
        });
        if (state === 'RUNNING' && userId === 'user-a') matching.push(id);
      }

      const pages = await allPages(store, { state: 'RUNNING', userId: 'user-a', limit: 2 });
      expect(pages.flat()).toEqual(matching.reverse());
      expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);

      const paused = await allPages(store, { state: 'PAUSED', limit: 100 });
      expect(paused.flat()).toHaveLength(8);
      const userB = (await allPages(store, { userId: 'user-b', limit: 5 })).flat();
      expect(userB).toHaveLength(12);
      for (const id of userB) expect((await store.getExecution(id))!.owner.userId).toBe('user-b');
      expect(await store.listExecutions({ userId: 'nobody', limit: 10 })).toEqual({
        items: [],
        nextCursor: null,
      });
    });

    it('rejects a cursor it did not hand out as a validation error', async () => {
      const store = await harness.open();
      const error = await rejectionOf(store.listExecutions({ limit: 10, cursor: 'not-a-cursor' }));
      expect(isCrewdError(error) && error.code).toBe('VALIDATION_ERROR');
    });

    it('counts executions in every state, zeros included', async () => {
      const store = await harness.open();
      expect(await store.countByState()).toEqual({
        PENDING: 0,
        RUNNING: 0,
        PAUSED: 0,
        SUCCESS: 0,
        FAILED: 0,
        REVOKED: 0,
      });
      for (const state of ['PENDING', 'RUNNING', 'RUNNING', 'FAILED'] as const)
        await createInState(store, state);
      expect(await store.countByState()).toEqual({
        PENDING: 1,
        RUNNING: 2,
        PAUSED: 0,
        SUCCESS: 0,
        FAILED: 1,
        REVOKED: 0,
      });
      // Only the states asked for are counted; the others read zero.
      expect(await store.countByState(['PENDING', 'FAILED', 'PAUSED'])).toEqual({
        PENDING: 1,
        RUNNING: 0,
        PAUSED: 0,
        SUCCESS: 0,
        FAILED: 1,
        REVOKED: 0,
      });
    });
  });
}
