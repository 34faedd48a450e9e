import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../store/sqlite/sqlite-store.ts';
import type { Store } from '../store/store.ts';
import { newExecution } from '../../test/store/store-fixtures.ts';
import { pruneFinished } from './retention.ts';

const t0 = new Date('2030-01-01T00:00:00.000Z');
const dayMs = 86_400_000;

async function finishedAt(store: Store, at: Date): Promise<string> {
  const { execution } = await store.createExecution(newExecution({ createdAt: at }));
  const id = execution.id;
  await store.applyChange({ executionId: id, fromStates: ['PENDING'], state: 'RUNNING', now: at });
  await store.applyChange({ executionId: id, fromStates: ['RUNNING'], state: 'SUCCESS', now: at });
  return id;
}

describe('pruneFinished', () => {
  it('deletes in batches every finished execution past the period on the clock, and its files', async () => {
    const store = await openSqliteStore(':memory:');
    await store.migrate();
    const old: string[] = [];
    for (let index = 0; index < 5; index += 1) old.push(await finishedAt(store, t0));
    const recent = await finishedAt(store, new Date(t0.getTime() + 20 * dayMs));
    const removed: string[] = [];
    const batches: number[] = [];
    const counting: Store = {
      ...store,
      deleteFinishedBefore: async (before, limit) => {
        const ids = await store.deleteFinishedBefore(before, limit);
        batches.push(ids.length);
        return ids;
      },
    };

    const deleted = await pruneFinished({
      store: counting,
      onDeleted: (id) => Promise.resolve(void removed.push(id)),
      retentionMs: 10 * dayMs,
      clock: () => new Date(t0.getTime() + 25 * dayMs),
      batchSize: 2,
    });

    expect(deleted).toBe(5);
    expect(batches).toEqual([2, 2, 1]);
    expect([...removed].sort()).toEqual([...old].sort());
    expect(await store.getExecution(recent)).not.toBeNull();
    await store.close();
  });
});
