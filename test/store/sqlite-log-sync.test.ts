import { fdatasync, mkdtempSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogSync, type Flush } from '../../src/store/sqlite/log-sync.ts';
import { until } from '../support/until.ts';

describe('SQLite log sync', () => {
  let dir: string;
  let db: Database.Database;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'crewd-log-sync-'));
    db = new Database(join(dir, 'log.db'));
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE notes (text TEXT)');
  });

  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A flush the test finishes by hand, recording the file each was asked for. */
  function manualFlush() {
    const calls: { fd: number; done: (error: Error | null) => void }[] = [];
    const flush: Flush = (fd, done) => calls.push({ fd, done });
    return { calls, flush };
  }

  it('flushes the write-ahead log file with fdatasync', async () => {
    const flushed: string[] = [];
    const log = createLogSync(db, (fd, done) => {
      flushed.push(readlinkSync(`/proc/self/fd/${fd}`));
      fdatasync(fd, done);
    });
    db.exec("INSERT INTO notes VALUES ('a')");
    await expect(log.sync()).resolves.toBeUndefined();
    expect(flushed).toEqual([join(realpathSync(dir), 'log.db-wal')]);
    await log.close();
  });

  it('shares one flush between the calls made while another runs, and never reuses one started before a call', async () => {
    const { calls, flush } = manualFlush();
    const log = createLogSync(db, flush);
    const settled: string[] = [];
    const first = log.sync().then(() => settled.push('first'));
    expect(calls).toHaveLength(1);
    // Asked while the first flush runs: that flush may not hold their commits, so they wait for the next one.
    const second = log.sync().then(() => settled.push('second'));
    const third = log.sync().then(() => settled.push('third'));
    expect(calls).toHaveLength(1);
    calls[0]!.done(null);
    await first;
    await until(() => calls.length === 2);
    expect(settled).toEqual(['first']);
    calls[1]!.done(null);
    await Promise.all([second, third]);
    expect(settled).toEqual(['first', 'second', 'third']);
    expect(calls).toHaveLength(2);
    await log.close();
  });

  it('passes a failed flush to its callers, and the next call flushes again', async () => {
    const { calls, flush } = manualFlush();
    const log = createLogSync(db, flush);
    const failed = log.sync();
    calls[0]!.done(new Error('EIO'));
    await expect(failed).rejects.toThrow('EIO');
    const retried = log.sync();
    expect(calls).toHaveLength(2);
    calls[1]!.done(null);
    await expect(retried).resolves.toBeUndefined();
    await log.close();
  });

  it('has nothing to flush before the first write has created the log', async () => {
    const fresh = new Database(join(dir, 'fresh.db'));
    fresh.pragma('journal_mode = WAL');
    const { calls, flush } = manualFlush();
    const log = createLogSync(fresh, flush);
    await expect(log.sync()).resolves.toBeUndefined();
    expect(calls).toHaveLength(0);
    await log.close();
    fresh.close();
  });

  it('has nothing to flush for an in-memory database', async () => {
    const memory = new Database(':memory:');
    const { calls, flush } = manualFlush();
    const log = createLogSync(memory, flush);
    await expect(log.sync()).resolves.toBeUndefined();
    expect(calls).toHaveLength(0);
    await log.close();
    memory.close();
  });
});
