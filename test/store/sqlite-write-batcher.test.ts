import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CrewdError } from '../../src/domain/errors.ts';
import { createWriteBatcher } from '../../src/store/sqlite/write-batcher.ts';
import { until } from '../support/until.ts';

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
  const synced = (): Promise<void> => Promise.resolve();
  const insert = (text: string) => () => db.prepare('INSERT INTO notes (text) VALUES (?)').run(text).changes;

  it('commits the writes of one turn in one transaction, in order, and resolves each after the commit', async () => {
    const batcher = createWriteBatcher(db, synced);
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
    const batcher = createWriteBatcher(db, synced);
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
    const batcher = createWriteBatcher(writer, synced);
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
    const batcher = createWriteBatcher(db, synced);
    const write = batcher.write(insert('a'));
    const flushed = batcher.flush();
    expect(committed()).toEqual(['a']);
    await flushed;
    await expect(write).resolves.toBe(1);
  });

  describe('with the log synced off the event loop', () => {
    /** A sync the test finishes by hand, recording when it was asked for. */
    function manualSync() {
      const pending: { done: () => void; fail: (error: Error) => void }[] = [];
      return {
        pending,
        sync: () => new Promise<void>((done, fail) => pending.push({ done, fail })),
      };
    }

    it('acknowledges a write only after the sync that follows its commit', async () => {
      const log = manualSync();
      const batcher = createWriteBatcher(db, log.sync);
      let acknowledged = false;
      const write = batcher.write(insert('a')).then((changes) => {
        acknowledged = true;
        return changes;
      });
      await until(() => log.pending.length === 1);
      // Committed, so the next turn's writes can go on, but not yet acknowledged.
      expect(committed()).toEqual(['a']);
      await new Promise((done) => setImmediate(done));
      expect(acknowledged).toBe(false);
      log.pending[0]!.done();
      await expect(write).resolves.toBe(1);
    });

    it('fails the writes of a commit whose sync failed, and not those of the next', async () => {
      const log = manualSync();
      const batcher = createWriteBatcher(db, log.sync);
      const first = batcher.write(insert('a'));
      await until(() => log.pending.length === 1);
      const second = batcher.write(insert('b'));
      await until(() => log.pending.length === 2);
      log.pending[0]!.fail(new Error('disk gone'));
      log.pending[1]!.done();
      await expect(first).rejects.toThrow('disk gone');
      await expect(second).resolves.toBe(1);
    });

    it('does not wait for a sync when every write of the turn failed', async () => {
      const log = manualSync();
      const batcher = createWriteBatcher(db, log.sync);
      const first = batcher.write(insert('a'));
      await until(() => log.pending.length === 1);
      log.pending[0]!.done();
      await first;
      const failed = batcher.write(insert('a'));
      await expect(failed).rejects.toThrow(/UNIQUE/);
      expect(log.pending).toHaveLength(1);
    });
  });
});
