import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CrewdError } from '../../src/domain/errors.ts';
import { createWriteBatcher } from '../../src/store/sqlite/write-batcher.ts';

describe('SQLite write batcher', () => {
  let dir: string;
  let db: Database.Database;
  let reader: Database.Database;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'crewd-batcher-'));
    db = new Database(join(dir, 'batch.db'));
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)');
    // Another connection sees only what has been committed.
    reader = new Database(join(dir, 'batch.db'), { readonly: true });
  });

  afterEach(() => {
    reader.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const committed = (): string[] =>
    reader
      .prepare<[], { text: string }>('SELECT text FROM notes ORDER BY id')
      .all()
      .map((row) => row.text);
  const insert = (text: string) => () => db.prepare('INSERT INTO notes (text) VALUES (?)').run(text).changes;

  it('commits the writes of one turn in one transaction, in order, and resolves each after the commit', async () => {
    const batcher = createWriteBatcher(db);
    const seenByOthers: string[][] = [];
    const first = batcher.write(insert('a'));
    const second = batcher.write(() => {
      // The first write is visible here but not yet to another connection: both are in one transaction.
      seenByOthers.push(committed());
      return db.prepare<[], { count: number }>('SELECT count(*) AS count FROM notes').get()?.count;
    });
    expect(committed()).toEqual([]);
    await expect(first).resolves.toBe(1);
    await expect(second).resolves.toBe(1);
    expect(seenByOthers).toEqual([[]]);
    expect(committed()).toEqual(['a']);
  });

  it('fails only the write that failed; the others of its turn are committed', async () => {
    const batcher = createWriteBatcher(db);
    const results = await Promise.allSettled([
      batcher.write(insert('a')),
      batcher.write(insert('a')),
      batcher.write(insert('b')),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(committed()).toEqual(['a', 'b']);
  });

  it('answers every write of a turn with a retryable error when another process holds the database', async () => {
    const holder = new Database(join(dir, 'batch.db'), { timeout: 0 });
    const writer = new Database(join(dir, 'batch.db'), { timeout: 0 });
    const batcher = createWriteBatcher(writer);
    holder.exec('BEGIN IMMEDIATE');
    try {
      const results = await Promise.allSettled([batcher.write(insert('a')), batcher.write(insert('b'))]);
      for (const result of results) {
        expect(result.status).toBe('rejected');
        const reason = (result as PromiseRejectedResult).reason as CrewdError;
        expect(reason).toBeInstanceOf(CrewdError);
        expect(reason.code).toBe('DEPENDENCY_UNAVAILABLE');
      }
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
      writer.close();
    }
    expect(committed()).toEqual([]);
  });

  it('commits what is waiting when flushed, before the connection closes', async () => {
    const batcher = createWriteBatcher(db);
    const write = batcher.write(insert('a'));
    batcher.flush();
    expect(committed()).toEqual(['a']);
    await expect(write).resolves.toBe(1);
  });
});
