import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createOwnerOnlyFileSync, makeOwnerOnlyDirectorySync } from '../../system/owner-only.ts';

/**
 * The liveness locks of the processes sharing one SQLite database, in place of PostgreSQL's advisory locks: a file
 * per process beside the database, which the process keeps locked for as long as it lives. The lock is SQLite's own
 * (a POSIX file lock, held by an open exclusive transaction), so the kernel releases it when the process ends, a
 * kill -9 included; a lease whose holder's file is missing or unlocked belongs to a process that is gone.
 */
export interface ProcessLocks {
  /** Locks `owner`'s file until the returned function is called, which also deletes it. */
  hold(owner: string): () => void;
  /** True when `owner` holds no lock (its file is missing or unlocked): the process is gone. */
  ended(owner: string): boolean;
}

/** The locks of the database at `databasePath`; an in-memory database has no other process to watch. */
export function processLocks(databasePath: string): ProcessLocks {
  if (databasePath === ':memory:') return { hold: () => () => {}, ended: () => false };
  const directory = `${databasePath}-processes`;
  // Owner names hold '/' and may be long: the file is named by a hash of the name.
  const fileOf = (owner: string): string =>
    join(directory, `${createHash('sha256').update(owner).digest('hex').slice(0, 32)}.lock`);
  return {
    hold: (owner) => {
      makeOwnerOnlyDirectorySync(directory);
      sweep(directory);
      const file = fileOf(owner);
      // Locked under a name no probe looks at, then moved into place: a probe never finds the file unlocked
      // (and deletes it) while its holder is still taking the lock.
      const pending = `${file}.${randomUUID()}`;
      createOwnerOnlyFileSync(pending);
      const holder = new Database(pending);
      try {
        // The transaction writes nothing: no journal file, which a killed holder would leave behind.
        holder.pragma('journal_mode = MEMORY');
        holder.exec('BEGIN EXCLUSIVE');
        renameSync(pending, file);
      } catch (error) {
        holder.close();
        removeLeftover(pending);
        throw error;
      }
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        holder.close();
        removeLeftover(file);
      };
    },
    ended: (owner) => {
      const file = fileOf(owner);
      const state = lockState(file);
      // Left behind by a process that is gone; its name never comes back, so nobody takes this file again.
      if (state === 'free') removeLeftover(file);
      return state !== 'held';
    },
  };
}

/**
 * Deletes the files of processes that are gone, which no claim probes when they held no leases. Only files in place:
 * a file still being locked (under its pending name) is not yet locked.
 */
function sweep(directory: string): void {
  for (const name of readdirSync(directory)) {
    const file = join(directory, name);
    if (name.endsWith('.lock') && lockState(file) === 'free') removeLeftover(file);
  }
}

/** Tidying only: a file that cannot be deleted now (a read-only disk) is found unlocked again later. */
function removeLeftover(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {
    // Left for a later probe.
  }
}

/** Which of these owners are gone, each probed once. */
export function endedProcesses(locks: ProcessLocks, owners: Iterable<string>): ReadonlySet<string> {
  return new Set([...new Set(owners)].filter((owner) => locks.ended(owner)));
}

/**
 * Whether a process holds the lock on `file`: a read needs a shared lock, which SQLite refuses at once (no busy
 * timeout) while the holder's exclusive transaction is open, also to another connection of the same process.
 */
function lockState(file: string): 'held' | 'free' | 'missing' {
  if (!existsSync(file)) return 'missing';
  let probe: Database.Database;
  try {
    probe = new Database(file, { readonly: true, fileMustExist: true, timeout: 0 });
  } catch {
    // Deleted since: its holder let go.
    return existsSync(file) ? 'held' : 'missing';
  }
  try {
    probe.prepare('SELECT count(*) FROM sqlite_master').get();
    return 'free';
  } catch {
    // SQLITE_BUSY: held. Any other failure proves nothing either, and the lease runs out on its own.
    return 'held';
  } finally {
    probe.close();
  }
}
