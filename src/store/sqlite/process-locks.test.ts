import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { endedProcesses, processLocks } from './process-locks.ts';

const directory = mkdtempSync(join(tmpdir(), 'crewd-process-locks-'));
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

let databases = 0;
function newDatabase(): string {
  databases += 1;
  return join(directory, `crewd-${databases}.db`);
}

/** A process of its own that holds `owner`'s lock on `database`; resolves once it says the lock is held. */
async function holdingProcess(database: string, owner: string): Promise<ChildProcess> {
  const module = fileURLToPath(new URL('./process-locks.ts', import.meta.url));
  const script = [
    `const { processLocks } = await import(${JSON.stringify(module)});`,
    `processLocks(${JSON.stringify(database)}).hold(${JSON.stringify(owner)});`,
    "console.log('held');",
    'setInterval(() => {}, 60_000);',
  ].join('\n');
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  let heard = '';
  child.stdout.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      heard += chunk;
      if (heard.includes('held\n')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the holder exited (${code}) before holding the lock`)));
  });
  return child;
}

/** What another process's probe says of `owner`'s lock on `database`. */
async function endedFromAnotherProcess(database: string, owner: string): Promise<boolean> {
  const module = fileURLToPath(new URL('./process-locks.ts', import.meta.url));
  const script = [
    `const { processLocks } = await import(${JSON.stringify(module)});`,
    `console.log(processLocks(${JSON.stringify(database)}).ended(${JSON.stringify(owner)}));`,
  ].join('\n');
  const { stdout } = await promisify(execFile)(process.execPath, [
    '--import',
    'tsx',
    '--input-type=module',
    '--eval',
    script,
  ]);
  return JSON.parse(stdout) as boolean;
}

describe('process locks', () => {
  it('tells a process holding its lock from one killed with SIGKILL, and deletes what the killed one left', async () => {
    const database = newDatabase();
    const locks = processLocks(database);
    const child = await holdingProcess(database, 'host/1/child');
    expect(locks.ended('host/1/child')).toBe(false);

    child.kill('SIGKILL');
    await once(child, 'exit');

    expect(locks.ended('host/1/child')).toBe(true);
    expect(readdirSync(`${database}-processes`)).toEqual([]);
    expect(locks.ended('host/1/child')).toBe(true);
  });

  it('deletes the files of processes that are gone when another process takes its lock', async () => {
    const database = newDatabase();
    const child = await holdingProcess(database, 'host/5/child');
    const live = await holdingProcess(database, 'host/5/live');
    child.kill('SIGKILL');
    await once(child, 'exit');

    const release = processLocks(database).hold('host/5/self');

    expect(readdirSync(`${database}-processes`)).toHaveLength(2);
    const locks = processLocks(database);
    expect([locks.ended('host/5/self'), locks.ended('host/5/live')]).toEqual([false, false]);
    expect(live.exitCode).toBeNull();
    release();
  });

  it('sees a lock held in this process from another connection, which leaves it held, until it is released', async () => {
    const database = newDatabase();
    const release = processLocks(database).hold('host/2/self');
    const locks = processLocks(database);
    expect(locks.ended('host/2/self')).toBe(false);
    expect(locks.ended('host/2/never-started')).toBe(true);
    // Closing the probe's file must not drop the lock this process holds on the same file.
    expect(locks.ended('host/2/self')).toBe(false);
    expect(await endedFromAnotherProcess(database, 'host/2/self')).toBe(false);

    release();

    expect(locks.ended('host/2/self')).toBe(true);
    expect(readdirSync(`${database}-processes`)).toEqual([]);
  });

  it('probes each owner once and names only those that are gone', () => {
    const database = newDatabase();
    const locks = processLocks(database);
    locks.hold('host/3/live');
    const probed: string[] = [];
    const counting = {
      hold: (owner: string) => locks.hold(owner),
      ended: (owner: string) => {
        probed.push(owner);
        return locks.ended(owner);
      },
    };

    const ended = endedProcesses(counting, ['host/3/live', 'host/3/gone', 'host/3/live', 'host/3/gone']);

    expect([...ended]).toEqual(['host/3/gone']);
    expect(probed).toEqual(['host/3/live', 'host/3/gone']);
  });

  it('has nothing to lock or probe for an in-memory database', () => {
    const locks = processLocks(':memory:');
    locks.hold('host/4/self')();
    expect(locks.ended('host/4/anyone')).toBe(false);
  });
});
