import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isCrewdError } from '../../src/domain/errors.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { describeStoreContract } from './store-contract.ts';
import { newExecution, rejectionOf } from './store-fixtures.ts';

const directory = mkdtempSync(join(tmpdir(), 'crewd-sqlite-store-'));
const path = join(directory, 'nested', 'crewd.db');

afterAll(() => rmSync(directory, { recursive: true, force: true }));

describeStoreContract(
  'SQLite store',
  (options) => openSqliteStore(path, options),
  () => {
    for (const suffix of ['', '-wal', '-shm', '-processes']) {
      rmSync(`${path}${suffix}`, { recursive: true, force: true });
    }
    return Promise.resolve();
  },
);

describe('SQLite store files', () => {
  it('creates missing parent directories and keeps the data in the file', async () => {
    const file = join(directory, 'a', 'b', 'store.db');
    const store = await openSqliteStore(file);
    await store.migrate();
    const { execution } = await store.createExecution(newExecution());
    await store.close();

    const reopened = await openSqliteStore(file);
    await reopened.migrate();
    expect(await reopened.getExecution(execution.id)).toEqual(execution);
    await reopened.close();
  });

  it('refuses a path it cannot open with a configuration error naming the file', async () => {
    const error = await rejectionOf(openSqliteStore(join(directory, 'nested')));
    expect(isCrewdError(error) && error.code).toBe('CONFIG_INVALID');
    expect((error as Error).message).toContain(join(directory, 'nested'));
  });
});
