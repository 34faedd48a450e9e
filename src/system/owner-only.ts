import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * crewd's files hold webhook credentials, feedback and what agents wrote: files it creates are its owner's alone
 * (0600) and so are the directories it makes (0700), whatever the umask. Directories that were already there are
 * left as they are: they are the operator's.
 */
export const ownerOnlyFileMode = 0o600;
export const ownerOnlyDirectoryMode = 0o700;

/** Makes `directory` and any missing parent, each owner-only. */
export async function makeOwnerOnlyDirectory(directory: string): Promise<void> {
  const first = await mkdir(directory, { recursive: true, mode: ownerOnlyDirectoryMode });
  if (first === undefined) return;
  for (const made of madeDirectories(directory, first)) await chmod(made, ownerOnlyDirectoryMode);
}

/** `makeOwnerOnlyDirectory` for the store's synchronous start-up. */
export function makeOwnerOnlyDirectorySync(directory: string): void {
  const first = mkdirSync(directory, { recursive: true, mode: ownerOnlyDirectoryMode });
  if (first === undefined) return;
  for (const made of madeDirectories(directory, first)) chmodSync(made, ownerOnlyDirectoryMode);
}

/** The directories a recursive mkdir made: from the first one it made down to the one asked for. */
function madeDirectories(directory: string, first: string): string[] {
  const made: string[] = [];
  const top = path.resolve(first);
  for (let current = path.resolve(directory); ; current = path.dirname(current)) {
    made.push(current);
    if (current === top || path.dirname(current) === current) return made;
  }
}

/**
 * Creates `file` empty and owner-only when it does not exist, for a library that creates files with its own mode
 * (SQLite gives its WAL and shared memory files the database file's mode). Leaves an existing file as it is; a
 * file that cannot be made here is left to the library, whose error says why.
 */
export function createOwnerOnlyFileSync(file: string): void {
  let descriptor: number;
  try {
    descriptor = openSync(file, 'wx', ownerOnlyFileMode);
  } catch {
    return;
  }
  try {
    fchmodSync(descriptor, ownerOnlyFileMode);
  } finally {
    closeSync(descriptor);
  }
}
