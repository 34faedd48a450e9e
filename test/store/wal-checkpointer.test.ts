import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnCheckpointWorker } from '../../src/store/sqlite/checkpoint-worker.ts';
import { superviseCheckpointWorker } from '../../src/store/sqlite/wal-checkpointer.ts';
import { until } from '../support/until.ts';

const directory = mkdtempSync(join(tmpdir(), 'crewd-wal-checkpointer-'));
let files = 0;

afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** SQLite's default for `wal_autocheckpoint`, in pages. */
const checkpointOnCommitPages = 1000;

describe('WAL checkpointer', () => {
  it('leaves checkpoints to the worker until the WAL is large, and to commits again when the worker dies', async () => {
    const { db, worker, checkpointer, errors } = supervisedWorker();
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBeGreaterThan(checkpointOnCommitPages);

    await worker.terminate();
    await until(() => errors.length > 0);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toMatch(/checkpoint worker exited/);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(checkpointOnCommitPages);
    await checkpointer.stop();
    db.close();
  });

  it('hands checkpoints back to commits once stopped, which is no failure', async () => {
    const { db, worker, checkpointer, errors } = supervisedWorker();
    await checkpointer.stop();
    expect(worker.threadId).toBe(-1);
    expect(errors).toEqual([]);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(checkpointOnCommitPages);
    db.close();
  });
});

function supervisedWorker() {
  const file = join(directory, `crewd-${++files}.db`);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  const worker = spawnCheckpointWorker(file, { intervalMs: 10, busyTimeoutMs: 100 });
  const errors: Error[] = [];
  const checkpointer = superviseCheckpointWorker(db, worker, (error) => errors.push(error));
  return { db, worker, checkpointer, errors };
}
