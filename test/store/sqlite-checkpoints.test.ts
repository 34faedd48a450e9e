import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { hangAfterMs, until } from '../support/until.ts';
import { newExecution } from './store-fixtures.ts';
import { readWalIndex } from './wal-index.ts';

const directory = mkdtempSync(join(tmpdir(), 'crewd-sqlite-checkpoints-'));
let files = 0;
const newFile = (): string => join(directory, `crewd-${++files}.db`);

afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('SQLite store WAL checkpoints', () => {
  it('are made by the worker, after which a commit starts the WAL over', async () => {
    const file = newFile();
    const store = await openSqliteStore(file);
    await store.migrate();
    const ids: string[] = [];
    const create = async (): Promise<void> => {
      const execution = newExecution();
      await store.createExecution(execution);
      ids.push(execution.id);
    };
    for (let i = 0; i < 50; i++) await create();

    await untilWalCheckpointed(file);
    // Told by the salt, not by the frame count: on a slow machine the worker may have checkpointed after nearly
    // every commit, so a WAL started over can hold as many frames as the checkpointed one.
    const checkpointed = readWalIndex(file).salt;
    await until(
      async () => {
        await create();
        return readWalIndex(file).salt !== checkpointed;
      },
      undefined,
      () => `the WAL never started over: ${JSON.stringify(readWalIndex(file))}`,
    );

    // The new WAL holds the commit that started it, and no commit was lost on the way.
    expect(readWalIndex(file).frames).toBeGreaterThan(0);
    const missing = [];
    for (const id of ids) if ((await store.getExecution(id)) === null) missing.push(id);
    expect(missing).toEqual([]);
    await store.close();
  });

  it('are made by several stores sharing one file side by side', async () => {
    const file = newFile();
    const errors: Error[] = [];
    const onError = (error: Error): number => errors.push(error);
    const stores = [await openSqliteStore(file, { onError }), await openSqliteStore(file, { onError })];
    await stores[0]!.migrate();
    for (let i = 0; i < 50; i++) {
      for (const store of stores) await store.createExecution(newExecution());
    }

    await untilWalCheckpointed(file);
    for (const store of stores) await store.close();
    expect(errors).toEqual([]);
  });

  it('end with close, which copies the whole WAL into the database file and removes it', async () => {
    const file = newFile();
    const store = await openSqliteStore(file);
    await store.migrate();
    await store.createExecution(newExecution());
    await store.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('let a store close right after opening, while its worker is still starting', async () => {
    const store = await openSqliteStore(newFile());
    await expect(store.close()).resolves.toBeUndefined();
  });

  it('let a process whose only remaining work is awaiting close finish it', () => {
    const storeModule = fileURLToPath(new URL('../../src/store/sqlite/sqlite-store.ts', import.meta.url));
    const script = [
      `const { openSqliteStore } = await import(${JSON.stringify(storeModule)});`,
      `const store = await openSqliteStore(${JSON.stringify(newFile())});`,
      'await store.close();',
      "console.log('closed');",
    ].join('\n');
    // Bounded, so a close that hangs fails the test instead of holding the worker.
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], {
      encoding: 'utf8',
      timeout: hangAfterMs,
    });
    // A process that exited with close still pending prints a warning and exits 13; stderr shows why.
    expect({ status: child.status, stdout: child.stdout, stderr: child.stderr }).toMatchObject({
      status: 0,
      stdout: 'closed\n',
    });
  });
});

/** Waits until the WAL holds frames and a checkpoint has copied all of them into the database file. */
async function untilWalCheckpointed(file: string): Promise<void> {
  await until(
    () => {
      const { frames, backfilled } = readWalIndex(file);
      return frames > 0 && backfilled === frames;
    },
    undefined,
    () => `no checkpoint copied the WAL: ${JSON.stringify(readWalIndex(file))}`,
  );
}
