import { roundUsd } from '../../domain/usage.ts';
import { executionPage } from '../execution-cursor.ts';
import {
  executionChangeValues,
  executionQueryValues,
  flowStateQueryValues,
  newExecutionValues,
} from '../row-encoder.ts';
import {
  checkTransition,
  executionStates,
  type Execution,
  type ExecutionState,
} from '../../domain/execution.ts';
import { QueueFull } from '../../domain/queue-full-error.ts';
import type { EventStore, ExecutionStore } from '../store.ts';
import { appliedChange } from '../applied-change.ts';
import { createChangeBatcher } from './change-batcher.ts';
import { livenessKeySql, liveOwnerKeys, noticeSql } from './liveness.ts';
import { namedQuery } from './named-query.ts';
import type { PostgresContext } from './postgres-context.ts';

/** The spend of a token's model calls logged in a time range: its executions' model-call-end events. */
const selectTokenSpend = namedQuery(
  'select_token_spend',
  `SELECT coalesce(sum((event.data -> 'usage' ->> 'total_tokens')::bigint), 0) AS tokens,
     coalesce(sum((event.data -> 'usage' ->> 'cost_usd')::float8), 0) AS cost_usd,
     count(*) FILTER (WHERE event.data -> 'usage' ->> 'unpriced' = 'true') AS unpriced
   FROM executions execution JOIN execution_events event ON event.execution_id = execution.id
   WHERE execution.owner_token_id = :token AND event.type = 'model-call-end'
     AND event.created_at >= :since::timestamptz AND event.created_at < :until::timestamptz`,
);

const insertExecution = namedQuery(
  'insert_execution',
  `WITH inserted AS (
     INSERT INTO executions (id, state, inputs, meta, webhooks, owner_token_id, owner_user_id, idempotency_key,
       request_hash, usage, created_at, updated_at, lease_owner, lease_until, crew, crew_version, review_deadline, budget,
       flow_state_id, restore_state_from)
     SELECT :id, :state, :inputs::json, :meta::json, :webhooks::json, :owner_token_id, :owner_user_id,
       :idempotency_key, :request_hash, :usage::json, :created_at::timestamptz, :created_at::timestamptz,
       :lease_owner::text, :lease_until::timestamptz, :crew::text, :crew_version::integer, :review_deadline::json, :budget::json,
       :flow_state_id::text, :restore_state_from::text
     WHERE :queue_limit::bigint IS NULL OR (SELECT count(*) FROM executions
       WHERE owner_token_id = :owner_token_id AND state = 'PENDING' AND lease_owner IS NULL) < :queue_limit::bigint
     ON CONFLICT (owner_token_id, idempotency_key) DO NOTHING
     RETURNING *
   )
   SELECT inserted.*, ${noticeSql('inserted')} AS notified FROM inserted`,
);

const selectByIdempotencyKey = namedQuery(
  'select_execution_by_idempotency_key',
  `SELECT * FROM executions WHERE owner_token_id = :owner_token_id AND idempotency_key = :idempotency_key`,
);

const selectExecution = namedQuery('select_execution', 'SELECT * FROM executions WHERE id = :id');

const selectRevision = namedQuery(
  'select_execution_revision',
  'SELECT revision FROM executions WHERE id = :id',
);
const selectPage = namedQuery(
  'select_execution_page',
  `SELECT * FROM executions
   WHERE (:state::text IS NULL OR state = :state::text)
     AND (:user_id::text IS NULL OR owner_user_id = :user_id::text)
     AND (:crews::json IS NULL OR crew IN (SELECT json_array_elements_text(:crews::json)))
     AND (:cursor_id::text IS NULL OR (created_at, id) < (:cursor_created_at::timestamptz, :cursor_id::text))
   ORDER BY created_at DESC, id DESC
   LIMIT :limit::bigint`,
);

// Walks the flow state index from the newest execution down, skipping those whose run has not started.
const selectLatestFlowState = namedQuery(
  'select_latest_flow_state',
  `SELECT * FROM executions
   WHERE crew = :crew::text AND flow_state_id = :state_id::text
     AND (:user_id::text IS NULL OR owner_user_id = :user_id::text)
     AND (created_at, id) < (:before_created_at::timestamptz, :before_id::text)
     AND json_array_length(flow_journal) > 0
   ORDER BY created_at DESC, id DESC
   LIMIT 1`,
);

const assignCrewless = namedQuery(
  'assign_crewless_executions',
  // Counts a revision, as every write of an execution's fields does (see applied-change.ts).
  'UPDATE executions SET crew = :crew::text, revision = revision + 1 WHERE crew IS NULL RETURNING id',
);

const renewLeases = namedQuery(
  'renew_execution_leases',
  `UPDATE executions SET lease_until = :until::timestamptz
   WHERE lease_owner = :owner::text AND state = 'RUNNING' AND id = ANY(:ids::text[])
   RETURNING id`,
);
/**
 * Whether an execution (`alias`) may be claimed by `:owner` now, its crew aside (`ofCrews` checks that); `live` is
 * the liveness locks held.
 */
function claimableSql(alias: string): string {
  return `${alias}.state IN ('PENDING', 'RUNNING') AND ${alias}.id <> ALL(:in_hand::text[])
    AND (${alias}.lease_owner IS NULL OR ${alias}.lease_until IS NULL
      OR ${alias}.lease_until <= :now::timestamptz
      OR (${alias}.lease_owner <> :owner::text
        AND ${livenessKeySql(`${alias}.lease_owner`)} NOT IN (SELECT objid FROM live)))`;
}

/** Whether the execution (`alias`) is of a crew the claimer serves (`:crews`; every crew when null). */
function ofCrewsSql(alias: string): string {
  return `(:crews::text[] IS NULL OR ${alias}.crew = ANY(:crews::text[]))`;
}

// Fair turns as `fairTurns` (src/store/fair-turns.ts) computes them for SQLite: RUNNING executions taken over at
// turn 0, waiting ones at their token's busy count plus their place in its queue, the token served least recently
// first within a turn. The turns are read without locks;
// the lock then checks claimability again on the row as it is, and SKIP LOCKED lets processes claiming at once each
// take different executions without waiting for one another. The claimer's own leases are never judged by its
// liveness lock, which is gone for a moment whenever the database restarts while its runs go on; and what it has
// in hand (`in_hand`) is never claimed, even once its lease ran out.
const claimExecutions = namedQuery(
  'claim_executions',
  `WITH live AS MATERIALIZED (${liveOwnerKeys}),
   candidate AS MATERIALIZED (
     SELECT execution.id, execution.state, execution.owner_token_id, execution.created_at
     FROM executions AS execution WHERE ${claimableSql('execution')} AND ${ofCrewsSql('execution')}
   ), busy AS (
     SELECT execution.owner_token_id, count(*) AS count FROM executions AS execution
     WHERE execution.state = 'RUNNING'
       OR (execution.state = 'PENDING' AND NOT (${claimableSql('execution')}))
     GROUP BY execution.owner_token_id
   ), served AS (
     SELECT token.owner_token_id, (SELECT max(execution.started_at) FROM executions AS execution
       WHERE execution.owner_token_id = token.owner_token_id) AS last_started
     FROM (SELECT DISTINCT owner_token_id FROM candidate) AS token
   ), turn AS (
     SELECT candidate.id, candidate.created_at, served.last_started, CASE WHEN candidate.state = 'RUNNING' THEN 0
       ELSE coalesce(busy.count, 0) + row_number() OVER (
         PARTITION BY candidate.owner_token_id, candidate.state ORDER BY candidate.created_at, candidate.id)
       END AS turn
     FROM candidate LEFT JOIN busy ON busy.owner_token_id = candidate.owner_token_id
       JOIN served ON served.owner_token_id = candidate.owner_token_id
   ), picked AS (
     SELECT execution.id, execution.lease_owner FROM executions AS execution JOIN turn ON turn.id = execution.id
     WHERE ${claimableSql('execution')} AND ${ofCrewsSql('execution')}
       AND (:running_per_token::bigint IS NULL OR turn.turn <= :running_per_token::bigint)
     ORDER BY turn.turn, turn.last_started NULLS FIRST, turn.created_at, turn.id
     LIMIT :limit::bigint
     FOR UPDATE OF execution SKIP LOCKED
   ), claimed AS (
     UPDATE executions AS execution
     SET lease_owner = :owner::text, lease_until = :until::timestamptz, revision = execution.revision + 1
     FROM picked WHERE execution.id = picked.id
     RETURNING execution.id, execution.state, execution.lease_owner, execution.revision,
       picked.lease_owner AS taken_from
   )
   SELECT claimed.id, claimed.state, claimed.taken_from, ${noticeSql('claimed')} AS notified FROM claimed`,
);

const selectDueReviews = namedQuery(
  'select_due_reviews',
  `SELECT id FROM executions WHERE pending_deadline <= :now::timestamptz AND state = 'PAUSED'
   ORDER BY pending_deadline, id LIMIT :limit::bigint`,
);

/** The advisory lock that claims under a limit per token take one at a time. */
const claimLock = 'crewd claims';

// Notified, so other processes continue the executions a stopping process leaves at once.
const releaseLeases = namedQuery(
  'release_execution_leases',
  `WITH released AS (
     UPDATE executions SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = :owner::text RETURNING *
   )
   SELECT ${noticeSql('released')} AS notified FROM released`,
);

/** Appends a json value to a json array, keeping every element's text (and so its key order) as it was. */
function appendJson(column: string, value: string): string {
  return `CASE WHEN ${value}::json IS NULL THEN ${column} ELSE (
    SELECT json_agg(item.value ORDER BY item.ord) FROM (
      SELECT existing.value, existing.ord FROM json_array_elements(${column}) WITH ORDINALITY AS existing(value, ord)
      UNION ALL SELECT ${value}::json, 9223372036854775807
    ) AS item) END`;
}

// Changes to different executions, applied by one statement, so one transaction and one round trip: each guarded
// update is a compare-and-set (a concurrent change waits on the row lock, then finds its guard no longer holds),
// and a change's events and outbox messages are written only when its update matched. `last_event_sequence`
// reserves the events' numbers. Values that are json in the row arrive as json text, as they would as parameters.
// It answers with whole rows, or with only the counters when every caller holds the copy the change was written on
// (see applied-change.ts): the rows' json columns are then neither sent nor parsed.
function applyChangesSql(answer: 'rows' | 'counters'): string {
  const columns =
    answer === 'rows'
      ? 'updated.*'
      : 'updated.id, updated.revision, updated.last_event_sequence, updated.change_ord';
  return `WITH change AS MATERIALIZED (
     SELECT * FROM json_to_recordset(:changes::json) AS change(
       ord int, id text, from_states json, expect_task text, expect_attempt int, state text,
       set_current_task int, current_task text, set_last_step int, last_step text, usage text,
       set_result int, result text, set_result_json int, result_json text, set_error int, error text,
       webhooks text, started_at text, finished_at text, append_output text, append_feedback text,
       append_flow_entry text,
       set_pending int, pending text, pending_deadline text, event_count int, events json, outbox json, now text,
       lease_owner text, set_lease int, lease_holder text, lease_until text)
   ), updated AS (
     UPDATE executions AS execution SET
       state = coalesce(change.state, execution.state),
       current_task = CASE WHEN change.set_current_task = 1 THEN change.current_task ELSE execution.current_task END,
       last_step = CASE WHEN change.set_last_step = 1 THEN change.last_step::json ELSE execution.last_step END,
       usage = coalesce(change.usage::json, execution.usage),
       result = CASE WHEN change.set_result = 1 THEN change.result ELSE execution.result END,
       result_json = CASE WHEN change.set_result_json = 1 THEN change.result_json::json
         ELSE execution.result_json END,
       error = CASE WHEN change.set_error = 1 THEN change.error ELSE execution.error END,
       webhooks = coalesce(change.webhooks::json, execution.webhooks),
       started_at = coalesce(change.started_at::timestamptz, execution.started_at),
       finished_at = coalesce(change.finished_at::timestamptz, execution.finished_at),
       outputs = ${appendJson('execution.outputs', 'change.append_output')},
       feedback = ${appendJson('execution.feedback', 'change.append_feedback')},
       flow_journal = ${appendJson('execution.flow_journal', 'change.append_flow_entry')},
       pending = CASE WHEN change.set_pending = 1 THEN change.pending::json ELSE execution.pending END,
       pending_deadline = CASE WHEN change.set_pending = 1 THEN change.pending_deadline::timestamptz
         ELSE execution.pending_deadline END,
       last_event_sequence = execution.last_event_sequence + change.event_count,
       revision = execution.revision + 1,
       lease_owner = CASE WHEN change.set_lease = 1 THEN change.lease_holder ELSE execution.lease_owner END,
       lease_until = CASE WHEN change.set_lease = 1 THEN change.lease_until::timestamptz
         ELSE execution.lease_until END,
       updated_at = change.now::timestamptz
     FROM change
     -- The ids again as an array, so the planner looks the rows up by key instead of scanning the table.
     WHERE execution.id = ANY(:ids::text[]) AND execution.id = change.id
       AND execution.state IN (SELECT json_array_elements_text(change.from_states))
       AND (change.expect_task IS NULL
         OR (execution.pending ->> 'taskId' = change.expect_task
           AND (execution.pending ->> 'attempt')::int = change.expect_attempt))
       AND (change.lease_owner IS NULL OR execution.lease_owner IS NULL
         OR execution.lease_owner = change.lease_owner OR execution.lease_until <= change.now::timestamptz)
     RETURNING execution.*, change.ord AS change_ord
   ), new_events AS (
     INSERT INTO execution_events (execution_id, sequence, type, data, created_at)
     SELECT updated.id, updated.last_event_sequence - change.event_count + event.ord,
       event.value ->> 'type', event.value -> 'data', change.now::timestamptz
     FROM updated JOIN change ON change.ord = updated.change_ord
       CROSS JOIN json_array_elements(change.events) WITH ORDINALITY AS event(value, ord)
   ), new_messages AS (
     INSERT INTO outbox_messages (id, execution_id, kind, url, payload, headers, next_attempt_at, created_at)
     SELECT message.value ->> 'id', updated.id, message.value ->> 'kind', message.value ->> 'url',
       message.value -> 'payload', message.value -> 'headers', change.now::timestamptz, change.now::timestamptz
     FROM updated JOIN change ON change.ord = updated.change_ord
       CROSS JOIN json_array_elements(change.outbox) WITH ORDINALITY AS message(value, ord)
     ORDER BY change.ord, message.ord
   )
   SELECT ${columns}, ${noticeSql('updated')} AS notified FROM updated`;
}

export const applyChanges = namedQuery('apply_execution_changes', applyChangesSql('rows'));
const applyChangesAnsweringCounters = namedQuery(
  'apply_execution_changes_counters',
  applyChangesSql('counters'),
);

const countStates = namedQuery(
  'count_execution_states',
  `SELECT state, count(*)::int AS count FROM executions WHERE state = ANY(:states::text[]) GROUP BY state`,
);

const selectEvents = namedQuery(
  'select_execution_events',
  `SELECT * FROM execution_events WHERE execution_id = :execution_id AND sequence > :after::bigint
   ORDER BY sequence LIMIT :limit::bigint`,
);

/** `origin`: this process's name in the notices its writes send. */
export function postgresExecutionStore(
  { query, serialized, decode }: PostgresContext,
  origin: string,
): ExecutionStore & EventStore {
  const changes = createChangeBatcher(async (batch) => {
    const everyKnown = batch.every((entry) => entry.known !== undefined);
    const rows = await query(everyKnown ? applyChangesAnsweringCounters : applyChanges, {
      origin,
      ids: batch.map(({ change }) => change.executionId),
      changes: JSON.stringify(
        // Added to the encoder's literal: on Node 20, fields added after a leading spread take V8's slow path.
        batch.map(({ change }, ord) =>
          Object.assign(executionChangeValues(change), {
            ord,
            from_states: change.fromStates,
            events: change.events ?? [],
            outbox: change.outbox ?? [],
          }),
        ),
      ),
    });
    const applied: (Execution | null)[] = batch.map(() => null);
    const stale: number[] = [];
    for (const row of rows) {
      const ord = row.change_ord as number;
      if (!everyKnown) {
        applied[ord] = decode.execution(row);
        continue;
      }
      const { change, known } = batch[ord]!;
      const written = { revision: Number(row.revision), lastEventSequence: Number(row.last_event_sequence) };
      if (written.revision === known!.revision + 1) applied[ord] = appliedChange(known!, change, written);
      else stale.push(ord);
    }
    // Written elsewhere since the caller's copy: the row as it stands now.
    for (const ord of stale) {
      const [row] = await query(selectExecution, { id: batch[ord]!.change.executionId });
      applied[ord] = row === undefined ? null : decode.execution(row);
    }
    return applied;
  });
  return {
    createExecution: async (execution) => {
      const values = newExecutionValues(execution);
      // The count and the insert share a statement, not a lock: kickoffs of one token at the same moment may pass
      // the limit by as many as come together.
      const [inserted] = await query(insertExecution, {
        ...values,
        origin,
        queue_limit: execution.queueLimit ?? null,
      });
      if (inserted !== undefined) return { created: true, execution: decode.execution(inserted) };
      const [existing] = await query(selectByIdempotencyKey, values);
      if (existing === undefined) {
        if (execution.queueLimit !== undefined) throw new QueueFull();
        throw new Error('Execution insert was skipped without a conflicting row');
      }
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

    getExecutionRevision: async (id) => {
      const [row] = await query(selectRevision, { id });
      return row === undefined ? null : Number(row.revision);
    },
    listExecutions: async (request) => {
      const rows = await query(selectPage, executionQueryValues(request));
      return executionPage(
        rows.map((row) => decode.execution(row)),
        request.limit,
      );
    },

    latestFlowState: async (request) => {
      const [row] = await query(selectLatestFlowState, flowStateQueryValues(request));
      return row === undefined ? null : decode.execution(row);
    },

    renewLeases: async (owner, executionIds, until) =>
      (await query(renewLeases, { owner, ids: executionIds, until: until.toISOString() })).map(
        (row) => row.id as string,
      ),

    claimExecutions: async (owner, now, until, limit, inHand = [], options = {}) => {
      const values = {
        origin,
        owner,
        in_hand: inHand,
        now: now.toISOString(),
        until: until.toISOString(),
        limit,
        running_per_token: options.runningPerToken ?? null,
        crews: options.crews ?? null,
      };
      // A limit per token is only kept if claims counting a token's running executions never overlap: each sees the
      // leases the one before it committed.
      const rows =
        options.runningPerToken === undefined
          ? await query(claimExecutions, values)
          : await serialized(claimLock, claimExecutions, values);
      return rows.map((row) => ({
        id: row.id as string,
        state: row.state as ExecutionState,
        takenFrom: row.taken_from as string | null,
      }));
    },

    tokenSpend: async (tokenId, since, until) => {
      const [row] = await query(selectTokenSpend, {
        token: tokenId,
        since: since.toISOString(),
        until: until.toISOString(),
      });
      return {
        tokens: Number(row?.tokens ?? 0),
        costUsd: roundUsd(Number(row?.cost_usd ?? 0)),
        unpricedRequests: Number(row?.unpriced ?? 0),
      };
    },

    listDueReviews: async (now, limit) =>
      (await query(selectDueReviews, { now: now.toISOString(), limit })).map((row) => row.id as string),

    releaseLeases: async (owner) => {
      await query(releaseLeases, { owner, origin });
    },

    assignCrewless: async (crew) => (await query(assignCrewless, { crew })).length,

    applyChange: async (change, known) => {
      checkTransition(change.fromStates, change.state);
      return changes.apply(change, known);
    },
    countByState: async (states = executionStates) =>
      decode.stateCounts(await query(countStates, { states: [...states] })),

    listEvents: async (executionId, afterSequence, limit) =>
      (await query(selectEvents, { execution_id: executionId, after: afterSequence, limit })).map((row) =>
        decode.event(row),
      ),
  };
}
