import { executionPage } from '../execution-cursor.ts';
import { executionChangeValues, executionQueryValues, newExecutionValues } from '../row-encoder.ts';
import type { EventStore, ExecutionStore } from '../store.ts';
import { namedQuery } from './named-query.ts';
import type { PostgresContext } from './postgres-context.ts';

const insertExecution = namedQuery(
  'insert_execution',
  `INSERT INTO executions (id, state, inputs, meta, webhooks, owner_token_id, owner_user_id, idempotency_key,
     request_hash, usage, created_at, updated_at)
   VALUES (:id, :state, :inputs::json, :meta::json, :webhooks::json, :owner_token_id, :owner_user_id,
     :idempotency_key, :request_hash, :usage::json, :created_at::timestamptz, :created_at::timestamptz)
   ON CONFLICT (owner_token_id, idempotency_key) DO NOTHING
   RETURNING *`,
);

const selectByIdempotencyKey = namedQuery(
  'select_execution_by_idempotency_key',
  `SELECT * FROM executions WHERE owner_token_id = :owner_token_id AND idempotency_key = :idempotency_key`,
);

const selectExecution = namedQuery('select_execution', 'SELECT * FROM executions WHERE id = :id');

const selectPage = namedQuery(
  'select_execution_page',
  `SELECT * FROM executions
   WHERE (:state::text IS NULL OR state = :state::text)
     AND (:user_id::text IS NULL OR owner_user_id = :user_id::text)
     AND (:cursor_id::text IS NULL OR (created_at, id) < (:cursor_created_at::timestamptz, :cursor_id::text))
   ORDER BY created_at DESC, id DESC
   LIMIT :limit::bigint`,
);

const selectIds = namedQuery(
  'select_execution_ids',
  `SELECT id FROM executions WHERE state = ANY(:states::text[]) ORDER BY created_at, id LIMIT :limit::bigint`,
);

/** Appends a json value to a json array, keeping every element's text (and so its key order) as it was. */
function appendJson(column: string, value: string): string {
  return `CASE WHEN ${value}::json IS NULL THEN ${column} ELSE (
    SELECT json_agg(item.value ORDER BY item.ord) FROM (
      SELECT existing.value, existing.ord FROM json_array_elements(${column}) WITH ORDINALITY AS existing(value, ord)
      UNION ALL SELECT ${value}::json, 9223372036854775807
    ) AS item) END`;
}

// One statement, so one transaction: the guarded update is a compare-and-set (a concurrent change waits on the row
// lock, then finds the guard no longer holds), and the events and outbox messages are written only when it matched.
// `last_event_sequence` reserves the events' numbers.
const applyChange = namedQuery(
  'apply_execution_change',
  `WITH updated AS (
     UPDATE executions SET
       state = coalesce(:state::text, state),
       current_task = CASE WHEN :set_current_task::int = 1 THEN :current_task::text ELSE current_task END,
       last_step = CASE WHEN :set_last_step::int = 1 THEN :last_step::json ELSE last_step END,
       usage = coalesce(:usage::json, usage),
       result = CASE WHEN :set_result::int = 1 THEN :result::text ELSE result END,
       result_json = CASE WHEN :set_result_json::int = 1 THEN :result_json::json ELSE result_json END,
       error = CASE WHEN :set_error::int = 1 THEN :error::text ELSE error END,
       webhooks = coalesce(:webhooks::json, webhooks),
       started_at = coalesce(:started_at::timestamptz, started_at),
       finished_at = coalesce(:finished_at::timestamptz, finished_at),
       outputs = ${appendJson('outputs', ':append_output')},
       feedback = ${appendJson('feedback', ':append_feedback')},
       pending = CASE WHEN :set_pending::int = 1 THEN :pending::json ELSE pending END,
       last_event_sequence = last_event_sequence + :event_count::int,
       updated_at = :now::timestamptz
     WHERE id = :id
       AND state = ANY(:from_states::text[])
       AND (:expect_task::text IS NULL
         OR (pending ->> 'taskId' = :expect_task::text AND (pending ->> 'attempt')::int = :expect_attempt::int))
     RETURNING *
   ), new_events AS (
     INSERT INTO execution_events (execution_id, sequence, type, data, created_at)
     SELECT updated.id, updated.last_event_sequence - :event_count::int + event.ord,
       event.value ->> 'type', event.value -> 'data', :now::timestamptz
     FROM updated CROSS JOIN json_array_elements(:events::json) WITH ORDINALITY AS event(value, ord)
   ), new_messages AS (
     INSERT INTO outbox_messages (id, execution_id, kind, url, payload, headers, next_attempt_at, created_at)
     SELECT message.value ->> 'id', updated.id, message.value ->> 'kind', message.value ->> 'url',
       message.value -> 'payload', message.value -> 'headers', :now::timestamptz, :now::timestamptz
     FROM updated CROSS JOIN json_array_elements(:outbox::json) WITH ORDINALITY AS message(value, ord)
     ORDER BY message.ord
   )
   SELECT * FROM updated`,
);

const countStates = namedQuery(
  'count_execution_states',
  'SELECT state, count(*)::int AS count FROM executions GROUP BY state',
);

const selectEvents = namedQuery(
  'select_execution_events',
  `SELECT * FROM execution_events WHERE execution_id = :execution_id AND sequence > :after::bigint
   ORDER BY sequence LIMIT :limit::bigint`,
);

export function postgresExecutionStore({ query, decode }: PostgresContext): ExecutionStore & EventStore {
  return {
    createExecution: async (execution) => {
      const values = newExecutionValues(execution);
      const [inserted] = await query(insertExecution, values);
      if (inserted !== undefined) return { created: true, execution: decode.execution(inserted) };
      const [existing] = await query(selectByIdempotencyKey, values);
      if (existing === undefined) throw new Error('Execution insert was skipped without a conflicting row');
      return {
        created: false,
        execution: decode.execution(existing),
        requestHash: existing.request_hash as string | null,
      };
    },

    getExecution: async (id) => {
      const [row] = await query(selectExecution, { id });
      return row === undefined ? null : decode.execution(row);
    },

    listExecutions: async (request) => {
      const rows = await query(selectPage, executionQueryValues(request));
      return executionPage(
        rows.map((row) => decode.execution(row)),
        request.limit,
      );
    },

    listExecutionIds: async (states, limit) =>
      (await query(selectIds, { states, limit })).map((row) => row.id as string),

    applyChange: async (change) => {
      const [row] = await query(applyChange, {
        ...executionChangeValues(change),
        from_states: change.fromStates,
        events: JSON.stringify(change.events ?? []),
        outbox: JSON.stringify(change.outbox ?? []),
      });
      return row === undefined ? null : decode.execution(row);
    },

    countByState: async () => decode.stateCounts(await query(countStates)),

    listEvents: async (executionId, afterSequence, limit) =>
      (await query(selectEvents, { execution_id: executionId, after: afterSequence, limit })).map((row) =>
        decode.event(row),
      ),
  };
}
