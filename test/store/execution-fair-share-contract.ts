import { describe, expect, it } from 'vitest';
import { QueueFull } from '../../src/domain/queue-full-error.ts';
import type { Store } from '../../src/store/store.ts';
import { at, newExecution, rejectionOf } from './store-fixtures.ts';
import type { StoreHarness } from './store-harness.ts';

function byToken(tokenId: string) {
  return { owner: { tokenId, userId: null } };
}

/** Creates `count` waiting executions of one token, one a second from `from`; returns their ids, oldest first. */
async function waiting(store: Store, tokenId: string, count: number, from: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const created = await store.createExecution(
      newExecution({ ...byToken(tokenId), createdAt: at(from + index) }),
    );
    ids.push(created.execution.id);
  }
  return ids;
}

/** Claims one execution at a time, as a process with one free slot does, and names what each claim took. */
async function claimOneByOne(store: Store, times: number): Promise<string[]> {
  const taken: string[] = [];
  for (let index = 0; index < times; index += 1) {
    const claimed = await store.claimExecutions('process-a', at(100 + index), at(1000), 1);
    taken.push(...claimed.map((execution) => execution.id));
  }
  return taken;
}

export function describeExecutionFairShareContract(harness: StoreHarness): void {
  describe('fair shares among tokens', () => {
    it("starts another token's one kickoff before the rest of a token's burst", async () => {
      const store = await harness.open({ processId: 'process-a' });
      const burst = await waiting(store, 'token-busy', 5, 1);
      const [single] = await waiting(store, 'token-quiet', 1, 50);

      // The burst's oldest goes first; the quiet token's one is next, though four of the burst are older.
      expect(await claimOneByOne(store, 3)).toEqual([burst[0], single, burst[1]]);
    });

    it('serves the token served least recently first when tokens have as many running', async () => {
      const store = await harness.open({ processId: 'process-a' });
      const burst = await waiting(store, 'token-busy', 4, 1);
      const [single] = await waiting(store, 'token-quiet', 1, 50);
      // The burst's first ran and ended: both tokens have none running, and the busy one was served last.
      const step = { executionId: burst[0]!, now: at(60) };
      await store.applyChange({
        ...step,
        fromStates: ['PENDING'],
        state: 'RUNNING',
        patch: { startedAt: at(60) },
      });
      await store.applyChange({ ...step, fromStates: ['RUNNING'], state: 'SUCCESS' });

      expect(await claimOneByOne(store, 2)).toEqual([single, burst[1]]);
    });

    it('takes turns across tokens, a token with fewer running going first', async () => {
      const store = await harness.open({ processId: 'process-a' });
      const a = await waiting(store, 'token-a', 3, 1);
      const b = await waiting(store, 'token-b', 3, 10);
      const c = await waiting(store, 'token-c', 1, 20);

      expect(await claimOneByOne(store, 7)).toEqual([a[0], b[0], c[0], a[1], b[1], a[2], b[2]]);
    });

    it('gives no token more running executions than its limit, counting those it runs already', async () => {
      const store = await harness.open({ processId: 'process-a' });
      const running = await waiting(store, 'token-a', 1, 1);
      await store.applyChange({
        executionId: running[0]!,
        fromStates: ['PENDING'],
        state: 'RUNNING',
        lease: { owner: 'process-a', until: at(1000) },
        now: at(2),
      });
      const a = await waiting(store, 'token-a', 3, 3);
      const b = await waiting(store, 'token-b', 3, 10);

      const claimed = await store.claimExecutions('process-a', at(20), at(1000), 10, [], {
        runningPerToken: 2,
      });
      expect(new Set(claimed.map((execution) => execution.id))).toEqual(new Set([a[0], b[0], b[1]]));
      // Full for both until one ends.
      expect(
        await store.claimExecutions('process-a', at(21), at(1000), 10, [], { runningPerToken: 2 }),
      ).toEqual([]);
      await store.applyChange({
        executionId: running[0]!,
        fromStates: ['RUNNING'],
        state: 'SUCCESS',
        now: at(22),
      });
      expect(
        await store.claimExecutions('process-a', at(23), at(1000), 10, [], { runningPerToken: 2 }),
      ).toEqual([{ id: a[1], state: 'PENDING', takenFrom: null }]);
    });

    it('never lets processes claiming at once pass a limit per token', async () => {
      const first = await harness.open({ processId: 'process-a' });
      const second = await harness.open({ processId: 'process-b' });
      await waiting(first, 'token-a', 10, 1);

      const claims = await Promise.all([
        first.claimExecutions('process-a', at(20), at(1000), 10, [], { runningPerToken: 3 }),
        second.claimExecutions('process-b', at(20), at(1000), 10, [], { runningPerToken: 3 }),
      ]);
      expect(claims.flat()).toHaveLength(3);
    });

    it('refuses a kickoff past the queue limit of its token, writing nothing, and answers a repeat as before', async () => {
      const store = await harness.open();
      // Leased to a process, it is starting, not waiting: it does not count.
      await store.createExecution(
        newExecution({ ...byToken('token-a'), queueLimit: 2, lease: { owner: 'process-a', until: at(100) } }),
      );
      const accepted = await store.createExecution(
        newExecution({ ...byToken('token-a'), idempotencyKey: 'first', queueLimit: 2 }),
      );
      await store.createExecution(newExecution({ ...byToken('token-a'), queueLimit: 2 }));

      const refused = newExecution({ ...byToken('token-a'), queueLimit: 2 });
      expect(await rejectionOf(store.createExecution(refused))).toBeInstanceOf(QueueFull);
      expect(await store.getExecution(refused.id)).toBeNull();
      // The same kickoff again is the one already accepted, full or not.
      const repeated = await store.createExecution(
        newExecution({ ...byToken('token-a'), idempotencyKey: 'first', queueLimit: 2 }),
      );
      expect(repeated).toMatchObject({ created: false, execution: { id: accepted.execution.id } });
      // Another token's queue is its own.
      const other = await store.createExecution(newExecution({ ...byToken('token-b'), queueLimit: 2 }));
      expect(other.created).toBe(true);
      expect((await store.countByState(['PENDING'])).PENDING).toBe(4);
    });
  });
}
