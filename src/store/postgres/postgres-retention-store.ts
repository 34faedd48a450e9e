import type { RetentionStore } from '../store.ts';
import { namedQuery } from './named-query.ts';
import type { PostgresContext } from './postgres-context.ts';

// Events, webhook messages and their attempts go with their execution (ON DELETE CASCADE). A finished execution is
// last updated when it ends; created_at bounds the search with the (state, created_at) index. Rows another
// process is deleting at the same moment are skipped, not waited for.
const deleteFinished = namedQuery(
  'delete_finished_executions',
  `DELETE FROM executions WHERE id IN (
     SELECT id FROM executions
     WHERE state IN ('SUCCESS', 'FAILED', 'REVOKED')
       AND created_at < :before::timestamptz AND updated_at < :before::timestamptz
     LIMIT :limit::bigint
     FOR UPDATE SKIP LOCKED)
   RETURNING id`,
);

export function postgresRetentionStore({ query }: PostgresContext): RetentionStore {
  return {
    deleteFinishedBefore: async (before, limit) =>
      (await query(deleteFinished, { before: before.toISOString(), limit })).map((row) => row.id as string),
  };
}
