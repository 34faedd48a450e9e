import { rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * Where executions keep their files (what file tools write, `output_file`s): `workspace/` beside the SQLite database,
 * or `./.crewd/workspace` when the database is PostgreSQL (or in memory).
 */
export function workspaceRoot(database: string): string {
  return path.join(dataDirectory(database), 'workspace');
}

/** Where crewd keeps its files beside the database: the SQLite file's folder, or `./.crewd` for PostgreSQL. */
export function dataDirectory(database: string): string {
  if (/^postgres(ql)?:\/\//i.test(database) || database === ':memory:') return path.resolve('.crewd');
  return path.dirname(path.resolve(database));
}

/** One execution's own directory under the workspace root. */
export function executionWorkspace(root: string, executionId: string): string {
  return path.join(root, executionId);
}

/** Deletes one execution's directory and everything in it; nothing to do when it was never made. */
export async function removeExecutionWorkspace(root: string, executionId: string): Promise<void> {
  await rm(executionWorkspace(root, executionId), { recursive: true, force: true });
}
