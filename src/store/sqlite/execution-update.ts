import type { ExecutionChange } from '../store.ts';

/**
 * The guarded update of one change, setting only the columns the change carries. SQLite rewrites an index entry
 * whenever an UPDATE names one of its columns, whatever the value: one statement naming every column would rewrite
 * the state, start and deadline indexes on every commit, while most commits of a run (a task's end with the next
 * one's start) change none of them. Each shape of change gets its own statement, prepared once (a few dozen exist).
 *
 * The guards sit in the WHERE clause, so the update is a compare-and-set; `last_event_sequence` reserves the
 * numbers of the events written in the same transaction. Values are bound from `executionChangeValues`. It returns
 * the whole row, or only the counters when the caller builds the row itself (`appliedChange`).
 */
export function executionUpdateSql(change: ExecutionChange, returning: 'row' | 'counters'): string {
  const patch = change.patch ?? {};
  const set: string[] = [];
  if (change.state !== undefined) set.push('state = :state');
  if (patch.currentTask !== undefined) set.push('current_task = :current_task');
  if (patch.lastStep !== undefined) set.push('last_step = :last_step');
  if (patch.usage !== undefined) set.push('usage = :usage');
  if (patch.result !== undefined) set.push('result = :result');
  if (patch.resultJson !== undefined) set.push('result_json = :result_json');
  if (patch.error !== undefined) set.push('error = :error');
  if (patch.webhooks !== undefined) set.push('webhooks = :webhooks');
  if (patch.startedAt !== undefined) set.push('started_at = :started_at');
  if (patch.finishedAt !== undefined) set.push('finished_at = :finished_at');
  if (change.appendOutput !== undefined) {
    set.push(`outputs = json_insert(outputs, '$[#]', json(:append_output))`);
  }
  if (change.appendFeedback !== undefined) {
    set.push(`feedback = json_insert(feedback, '$[#]', json(:append_feedback))`);
  }
  if (change.appendFlowEntry !== undefined) {
    set.push(`flow_journal = json_insert(flow_journal, '$[#]', json(:append_flow_entry))`);
  }
  if (change.pending !== undefined) set.push('pending = :pending', 'pending_deadline = :pending_deadline');
  if ((change.events?.length ?? 0) > 0) set.push('last_event_sequence = last_event_sequence + :event_count');
  if (change.lease !== undefined) set.push('lease_owner = :lease_holder', 'lease_until = :lease_until');
  set.push('revision = revision + 1', 'updated_at = :now');

  const states = change.fromStates.map((_, index) => `:from_state_${index}`).join(', ');
  const where = [`id = :id`, `state IN (${states})`];
  if (change.expectPending !== undefined) {
    where.push(`pending ->> '$.taskId' = :expect_task`, `pending ->> '$.attempt' = :expect_attempt`);
  }
  if (change.lease !== undefined) {
    where.push('(lease_owner IS NULL OR lease_owner = :lease_owner OR lease_until <= :now)');
  }
  const columns = returning === 'row' ? '*' : 'revision, last_event_sequence';
  return `UPDATE executions SET ${set.join(', ')} WHERE ${where.join(' AND ')} RETURNING ${columns}`;
}

/** The `:from_state_<n>` values of `executionUpdateSql`. */
export function fromStateValues(change: ExecutionChange): Record<string, string> {
  return Object.fromEntries(change.fromStates.map((state, index) => [`from_state_${index}`, state]));
}
