import { rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * Where executions keep their files (what file tools write, `output_file`s): `workspace/` beside the SQLite database,
 * or `./.crewd/workspace` when the database is PostgreSQL (or in memory).
 */
export function workspaceRoot(database: string): string {
  return path.join(dataDirectory(database), 'workspace');
}

/** Where versions of crews loaded from the store are written out to run from, beside the database. */
export function crewVersionsRoot(database: string): string {
  return path.join(dataDirectory(database), 'crew-versions');
}

/** Where crewd keeps its files beside the database: the SQLite file's folder, or `./.crewd` for PostgreSQL. */
export function dataDirectory(database: string): string {
  if (hasNoDatabaseFile(database)) return path.resolve('.crewd');
  return path.dirname(path.resolve(database));
}

/**
 * Every file and directory crewd keeps its own state in for `database`: the SQLite file and its write-ahead log,
 * shared memory, journal and process locks, the development token, the workspace root, and the whole `./.crewd`
 * when crewd owns it (PostgreSQL). File tools never read them, wherever the operator put them.
 */
export function crewdStatePaths(database: string): string[] {
  const directory = dataDirectory(database);
  const own = [path.join(directory, 'dev-token'), workspaceRoot(database)];
  if (hasNoDatabaseFile(database)) return [directory, ...own];
  const file = path.resolve(database);
  return [file, ...['-wal', '-shm', '-journal', '-processes'].map((suffix) => `${file}${suffix}`), ...own];
}

function hasNoDatabaseFile(database: string): boolean {
  return /^postgres(ql)?:\/\//i.test(database) || database === ':memory:';
}

/** One execution's own directory under the workspace root. */
export function executionWorkspace(root: string, executionId: string): string {
  return path.join(root, executionId);
}

/** Deletes one execution's directory and everything in it; nothing to do when it was never made. */
export async function removeExecutionWorkspace(root: string, executionId: string): Promise<void> {
  await rm(executionWorkspace(root, executionId), { recursive: true, force: true });
}
