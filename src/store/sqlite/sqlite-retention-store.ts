import type { RetentionStore } from '../store.ts';
import type { SqliteContext } from './sqlite-context.ts';

// Events, webhook messages and their attempts go with their execution (ON DELETE CASCADE). A finished execution is
// last updated when it ends; created_at bounds the search with the (state, created_at) index, unordered so no
// batch sorts what it passes over.
const deleteFinished = `
  DELETE FROM executions WHERE id IN (
    SELECT id FROM executions
    WHERE state IN ('SUCCESS', 'FAILED', 'REVOKED') AND created_at < :before AND updated_at < :before
    LIMIT :limit)
  RETURNING id`;

export function sqliteRetentionStore({ statement, writes }: SqliteContext): RetentionStore {
  return {
    deleteFinishedBefore: (before, limit) =>
      writes.write(() =>
        statement(deleteFinished)
          .all({ before: before.toISOString(), limit })
          .map((row) => row.id as string),
      ),
  };
}
