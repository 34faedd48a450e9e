import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../store/sqlite/sqlite-store.ts';
import { StoreUnavailableError } from '../store/store-unavailable.ts';
import type { StoreErrorKind } from './metrics.ts';
import { countingStoreErrors } from './store-error-counter.ts';

describe('countingStoreErrors', () => {
  it('reports each failed store operation by kind and passes the error on unchanged', async () => {
    const store = await openSqliteStore(':memory:');
    await store.migrate();
    const kinds: StoreErrorKind[] = [];
    const counted = countingStoreErrors(
      { ...store, ping: () => Promise.reject(new StoreUnavailableError('disk-full', new Error('ENOSPC'))) },
      (kind) => kinds.push(kind),
    );

    await expect(counted.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
    // A statement the database refuses (here, against a closed connection) is "rejected".
    await store.close();
    await expect(counted.getExecution('missing')).rejects.toThrow();
    await expect(counted.countByState()).rejects.toThrow();

    expect(kinds).toEqual(['disk-full', 'rejected', 'rejected']);
  });

  it('leaves successful operations alone', async () => {
    const store = await openSqliteStore(':memory:');
    await store.migrate();
    const kinds: StoreErrorKind[] = [];
    const counted = countingStoreErrors(store, (kind) => kinds.push(kind));

    expect(await counted.getExecution('missing')).toBeNull();
    await counted.close();
    expect(kinds).toEqual([]);
  });
});
