import { rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * Where executions keep their files (what file tools write, `output_file`s): `workspace/` beside the SQLite database,
 * or `./.crewd/workspace` when the database is PostgreSQL (or in memory).
 */
export function workspaceRoot(database: string): string {
  if (/^postgres(ql)?:\/\//i.test(database) || database === ':memory:')
    return path.resolve('.crewd/workspace');
  return path.join(path.dirname(path.resolve(database)), 'workspace');
}

/** One execution's own directory under the workspace root. */
export function executionWorkspace(root: string, executionId: string): string {
  return path.join(root, executionId);
}

/** Deletes one execution's directory and everything in it; nothing to do when it was never made. */
export async function removeExecutionWorkspace(root: string, executionId: string): Promise<void> {
  await rm(executionWorkspace(root, executionId), { recursive: true, force: true });
}
