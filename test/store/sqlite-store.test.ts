import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { isCrewdError } from '../../src/domain/errors.ts';
import { migrateSqlite, sqliteMigrations } from '../../src/store/sqlite/migrations.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { describeStoreContract } from './store-contract.ts';
import { anyLogEntry, at, newExecution, rejectionOf } from './store-fixtures.ts';

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

  it('keeps the events of a database made before they were kept in order of arrival, and goes on numbering them', async () => {
    const file = join(directory, 'events-by-execution.db');
    const before = new Database(file);
    migrateSqlite(
      before,
      sqliteMigrations.filter((migration) => migration.version < 14),
    );
    before.close();
    // The columns are the same on both sides of the migration, so the store writes the old table as it is.
    const old = await openSqliteStore(file);
    const { execution } = await old.createExecution(newExecution());
    const { execution: other } = await old.createExecution(newExecution());
    for (const [id, type] of [
      [execution.id, 'execution-start'],
      [other.id, 'execution-start'],
      [execution.id, 'task-start'],
    ]) {
      await old.applyChange({
        executionId: id!,
        fromStates: ['PENDING', 'RUNNING'],
        state: 'RUNNING',
        events: [anyLogEntry(type!, { id })],
        now: at(1),
      });
    }
    await old.close();

    const store = await openSqliteStore(file);
    await store.migrate();
    await store.applyChange({
      executionId: execution.id,
      fromStates: ['RUNNING'],
      events: [anyLogEntry('task-end')],
      now: at(2),
    });
    const events = await store.listEvents(execution.id, 0, 10);
    expect(events.map((event) => [event.sequence, event.type])).toEqual([
      [1, 'execution-start'],
      [2, 'task-start'],
      [3, 'task-end'],
    ]);
    expect((await store.listEvents(other.id, 0, 10)).map((event) => event.data)).toEqual([{ id: other.id }]);
    await store.close();
  });

  it('refuses a path it cannot open with a configuration error naming the file', async () => {
    const error = await rejectionOf(openSqliteStore(join(directory, 'nested')));
    expect(isCrewdError(error) && error.code).toBe('CONFIG_INVALID');
    expect((error as Error).message).toContain(join(directory, 'nested'));
  });
});
