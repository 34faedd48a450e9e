import { executionPage } from '../execution-cursor.ts';
import { executionChangeValues, executionQueryValues, newExecutionValues } from '../row-encoder.ts';
import {
  checkTransition,
  executionStates,
  type Execution,
  type ExecutionState,
} from '../../domain/execution.ts';
import { QueueFull } from '../../domain/queue-full-error.ts';
import { fairTurns, type ClaimCandidate } from '../fair-turns.ts';
import type { CreateExecutionResult, EventStore, ExecutionChange, ExecutionStore } from '../store.ts';
import { endedProcesses, type ProcessLocks } from './process-locks.ts';
import type { SqliteContext } from './sqlite-context.ts';
import { settle } from './sqlite-context.ts';

const insertExecution = `
  INSERT INTO executions (id, state, inputs, meta, webhooks, owner_token_id, owner_user_id, idempotency_key,
    request_hash, usage, created_at, updated_at, lease_owner, lease_until, crew, crew_version, review_deadline)
  VALUES (:id, :state, :inputs, :meta, :webhooks, :owner_token_id, :owner_user_id, :idempotency_key,
    :request_hash, :usage, :created_at, :created_at, :lease_owner, :lease_until, :crew, :crew_version, :review_deadline)
  ON CONFLICT (owner_token_id, idempotency_key) DO NOTHING
  RETURNING *`;

const selectByIdempotencyKey = `
  SELECT * FROM executions WHERE owner_token_id = :owner_token_id AND idempotency_key = :idempotency_key`;

const selectExecution = 'SELECT * FROM executions WHERE id = ?';

const selectPage = `
  SELECT * FROM executions
  WHERE (:state IS NULL OR state = :state)
    AND (:user_id IS NULL OR owner_user_id = :user_id)
    AND (:crews IS NULL OR crew IN (SELECT value FROM json_each(:crews)))
    AND (:cursor_id IS NULL OR (created_at, id) < (:cursor_created_at, :cursor_id))
  ORDER BY created_at DESC, id DESC
  LIMIT :limit`;

const renewLeases = `
  UPDATE executions SET lease_until = :until
  WHERE lease_owner = :owner AND state = 'RUNNING' AND id IN (SELECT value FROM json_each(:ids))
  RETURNING id`;

// One writer at a time, so the read and the updates below see no other claim in between. Every waiting execution
// is read, since fair turns depend on each token's whole queue.
const selectClaimable = `
  SELECT id, state, lease_owner, created_at, owner_token_id FROM executions
  WHERE state IN ('PENDING', 'RUNNING') AND id NOT IN (SELECT value FROM json_each(:in_hand))
    AND (lease_owner IS NULL OR lease_until IS NULL OR lease_until <= :now)`;

// Leases other processes hold that may have ended: only executions running or waiting now, a bounded set.
const selectLeased = `
  SELECT id, state, lease_owner, created_at, owner_token_id FROM executions
  WHERE state IN ('PENDING', 'RUNNING') AND lease_owner IS NOT NULL AND lease_owner <> :owner
    AND lease_until > :now`;

const countActiveByToken = `
  SELECT owner_token_id, count(*) AS count FROM executions WHERE state IN ('PENDING', 'RUNNING')
  GROUP BY owner_token_id`;

// One index probe per token (SQLite's min/max optimisation), however many executions it has.
const selectLastStarted = `
  SELECT token.value AS owner_token_id,
    (SELECT max(started_at) FROM executions WHERE owner_token_id = token.value) AS last_started
  FROM json_each(:tokens) AS token`;

const selectDueReviews = `
  SELECT id FROM executions WHERE pending_deadline <= :now AND state = 'PAUSED'
  ORDER BY pending_deadline, id LIMIT :limit`;

const countWaiting = `
  SELECT count(*) AS count FROM executions
  WHERE owner_token_id = :owner_token_id AND state = 'PENDING' AND lease_owner IS NULL`;

const claimExecution = `
  UPDATE executions SET lease_owner = :owner, lease_until = :until, revision = revision + 1 WHERE id = :id`;

const releaseLeases = 'UPDATE executions SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ?';

const assignCrewless = 'UPDATE executions SET crew = ? WHERE crew IS NULL';

// The guards sit in the WHERE clause, so the update is a compare-and-set; `last_event_sequence` reserves the
// numbers of the events written in the same transaction.
const updateExecution = `
  UPDATE executions SET
    state = coalesce(:state, state),
    current_task = CASE WHEN :set_current_task THEN :current_task ELSE current_task END,
    last_step = CASE WHEN :set_last_step THEN :last_step ELSE last_step END,
    usage = coalesce(:usage, usage),
    result = CASE WHEN :set_result THEN :result ELSE result END,
    result_json = CASE WHEN :set_result_json THEN :result_json ELSE result_json END,
    error = CASE WHEN :set_error THEN :error ELSE error END,
    webhooks = coalesce(:webhooks, webhooks),
    started_at = coalesce(:started_at, started_at),
    finished_at = coalesce(:finished_at, finished_at),
    outputs = CASE WHEN :append_output IS NULL THEN outputs
      ELSE json_insert(outputs, '$[#]', json(:append_output)) END,
    feedback = CASE WHEN :append_feedback IS NULL THEN feedback
      ELSE json_insert(feedback, '$[#]', json(:append_feedback)) END,
    flow_journal = CASE WHEN :append_flow_entry IS NULL THEN flow_journal
      ELSE json_insert(flow_journal, '$[#]', json(:append_flow_entry)) END,
    pending = CASE WHEN :set_pending THEN :pending ELSE pending END,
    pending_deadline = CASE WHEN :set_pending THEN :pending_deadline ELSE pending_deadline END,
    last_event_sequence = last_event_sequence + :event_count,
    revision = revision + 1,
    lease_owner = CASE WHEN :set_lease THEN :lease_holder ELSE lease_owner END,
    lease_until = CASE WHEN :set_lease THEN :lease_until ELSE lease_until END,
    updated_at = :now
  WHERE id = :id
    AND state IN (SELECT value FROM json_each(:from_states))
    AND (:expect_task IS NULL
      OR (pending ->> '$.taskId' = :expect_task AND pending ->> '$.attempt' = :expect_attempt))
    AND (:lease_owner IS NULL OR lease_owner IS NULL OR lease_owner = :lease_owner OR lease_until <= :now)
  RETURNING *`;

const insertEvent = `
  INSERT INTO execution_events (execution_id, sequence, type, data, created_at)
  VALUES (?, ?, ?, ?, ?)`;

const insertOutboxMessage = `
  INSERT INTO outbox_messages (id, execution_id, kind, url, payload, headers, next_attempt_at, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;

const selectRevision = 'SELECT revision FROM executions WHERE id = ?';
const countStates = `
  SELECT state, count(*) AS count FROM executions WHERE state IN (SELECT value FROM json_each(?)) GROUP BY state`;

const selectEvents = `
  SELECT * FROM execution_events WHERE execution_id = ? AND sequence > ?
  ORDER BY sequence LIMIT ?`;

/** `locks`: the liveness locks that tell whether a lease's holder is still running. */
export function sqliteExecutionStore(
  { statement, decode, writes }: SqliteContext,
  locks: ProcessLocks,
): ExecutionStore & EventStore {
  // Runs inside a write transaction: the guarded update, then the events and messages only when it matched.
  const applyChange = (change: ExecutionChange): Execution | null => {
    const values = { ...executionChangeValues(change), from_states: JSON.stringify(change.fromStates) };
    const row = statement(updateExecution).get(values);
    if (row === undefined) return null;
    const now = change.now.toISOString();
    const events = change.events ?? [];
    const firstSequence = Number(row.last_event_sequence) - events.length + 1;
    events.forEach((event, index) => {
      statement(insertEvent).run(
        change.executionId,
        firstSequence + index,
        event.type,
        JSON.stringify(event.data),
        now,
      );
    });
    for (const message of change.outbox ?? []) {
      statement(insertOutboxMessage).run(
        message.id,
        change.executionId,
        message.kind,
        message.url,
        JSON.stringify(message.payload),
        JSON.stringify(message.headers),
        now,
        now,
      );
    }
    return decode.execution(row);
  };

  return {
    createExecution: async (execution) => {
      // Refused inside the write but thrown outside it: a throw would roll back the writes committed with it.
      const result = await writes.write((): CreateExecutionResult | 'full' => {
        const values = newExecutionValues(execution);
        const existing = statement(selectByIdempotencyKey).get(values);
        if (existing !== undefined) {
          return {
            created: false,
            execution: decode.execution(existing),
            requestHash: existing.request_hash as string | null,
          };
        }
        if (execution.queueLimit !== undefined) {
          const waiting = Number(statement(countWaiting).get(values)?.count ?? 0);
          if (waiting >= execution.queueLimit) return 'full';
        }
        const inserted = statement(insertExecution).get(values);
        if (inserted === undefined) throw new Error('Execution insert was skipped without a conflicting row');
        return { created: true, execution: decode.execution(inserted) };
      });
      if (result === 'full') throw new QueueFull();
      return result;
    },

    getExecution: (id) =>
      settle(() => {
        const row = statement(selectExecution).get(id);
        return row === undefined ? null : decode.execution(row);
      }),

    getExecutionRevision: (id) =>
      settle(() => {
        const row = statement(selectRevision).get(id);
        return row === undefined ? null : Number(row.revision);
      }),
    listExecutions: (query) =>
      settle(() => {
        const rows = statement(selectPage).all(executionQueryValues(query));
        return executionPage(
          rows.map((row) => decode.execution(row)),
          query.limit,
        );
      }),

    renewLeases: (owner, executionIds, until) =>
      writes.write(() =>
        statement(renewLeases)
          .all({ owner, ids: JSON.stringify(executionIds), until: until.toISOString() })
          .map((row) => row.id as string),
      ),

    claimExecutions: (owner, now, until, limit, inHand = [], options = {}) =>
      writes.write(() => {
        const values = { now: now.toISOString(), in_hand: JSON.stringify(inHand) };
        const free = statement(selectClaimable).all(values);
        // A holder whose liveness lock is gone (a crash, kill -9) lets go at once, as on PostgreSQL.
        const leased = statement(selectLeased).all({ now: values.now, owner });
        const ended = endedProcesses(
          locks,
          leased.map((row) => row.lease_owner as string),
        );
        const held = new Set(inHand);
        const orphaned = leased.filter(
          (row) => ended.has(row.lease_owner as string) && !held.has(row.id as string),
        );
        const active = new Map(
          statement(countActiveByToken)
            .all()
            .map((row) => [row.owner_token_id as string, Number(row.count)]),
        );
        const candidates = [...free, ...orphaned].map(claimCandidate);
        const tokens = [...new Set(candidates.map((candidate) => candidate.tokenId))];
        const lastStarted = new Map(
          statement(selectLastStarted)
            .all({ tokens: JSON.stringify(tokens) })
            .filter((row) => row.last_started !== null)
            .map((row) => [row.owner_token_id as string, row.last_started as string]),
        );
        const claimable = fairTurns(candidates, { active, lastStarted }, options.runningPerToken).slice(
          0,
          limit,
        );
        return claimable.map((candidate) => {
          statement(claimExecution).run({ owner, until: until.toISOString(), id: candidate.id });
          return { id: candidate.id, state: candidate.state, takenFrom: candidate.leaseOwner };
        });
      }),

    listDueReviews: (now, limit) =>
      settle(() =>
        statement(selectDueReviews)
          .all({ now: now.toISOString(), limit })
          .map((row) => row.id as string),
      ),

    releaseLeases: (owner) =>
      writes.write(() => {
        statement(releaseLeases).run(owner);
      }),

    assignCrewless: (crew) => writes.write(() => statement(assignCrewless).run(crew).changes),

    applyChange: async (change) => {
      // Before the write is queued: a refused change must not fail the others committed with it.
      checkTransition(change.fromStates, change.state);
      return writes.write(() => applyChange(change));
    },

    countByState: (states = executionStates) =>
      settle(() => decode.stateCounts(statement(countStates).all(JSON.stringify(states)))),

    listEvents: (executionId, afterSequence, limit) =>
      settle(() =>
        statement(selectEvents)
          .all(executionId, afterSequence, limit)
          .map((row) => decode.event(row)),
      ),
  };
}

function claimCandidate(row: Readonly<Record<string, unknown>>): ClaimCandidate {
  return {
    id: row.id as string,
    state: row.state as ExecutionState,
    tokenId: row.owner_token_id as string,
    createdAt: row.created_at as string,
    leaseOwner: row.lease_owner as string | null,
  };
}
