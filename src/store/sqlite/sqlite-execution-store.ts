import type { Spend } from '../../domain/budget.ts';
import { roundUsd } from '../../domain/usage.ts';
import { eventDataJson } from '../../domain/event-data-json.ts';
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
import { fairTurns, type ClaimCandidate } from '../fair-turns.ts';
import type { CreateExecutionResult, EventStore, ExecutionChange, ExecutionStore } from '../store.ts';
import { appliedChange } from '../applied-change.ts';
import { executionUpdateSql, fromStateValues } from './execution-update.ts';
import { endedProcesses, type ProcessLocks } from './process-locks.ts';
import type { SqliteContext } from './sqlite-context.ts';
import { settle } from './sqlite-context.ts';

/** The spend of a token's model calls logged in a time range: its executions' model-call-end events. */
const selectTokenSpend = `
  SELECT coalesce(sum(event.data ->> '$.usage.total_tokens'), 0) AS tokens,
    coalesce(sum(event.data ->> '$.usage.cost_usd'), 0) AS cost_usd,
    coalesce(sum(event.data ->> '$.usage.unpriced'), 0) AS unpriced
  FROM executions execution JOIN execution_events event ON event.execution_id = execution.id
  WHERE execution.owner_token_id = :token AND event.type = 'model-call-end'
    AND event.created_at >= :since AND event.created_at < :until`;

const insertExecution = `
  INSERT INTO executions (id, state, inputs, meta, webhooks, owner_token_id, owner_user_id, idempotency_key,
    request_hash, usage, created_at, updated_at, lease_owner, lease_until, crew, crew_version, review_deadline, budget,
    flow_state_id, restore_state_from)
  VALUES (:id, :state, :inputs, :meta, :webhooks, :owner_token_id, :owner_user_id, :idempotency_key,
    :request_hash, :usage, :created_at, :created_at, :lease_owner, :lease_until, :crew, :crew_version, :review_deadline, :budget,
    :flow_state_id, :restore_state_from)
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

// Walks the flow state index from the newest execution down, skipping those whose run has not started.
const selectLatestFlowState = `
  SELECT * FROM executions INDEXED BY executions_flow_state
  WHERE crew = :crew AND flow_state_id = :state_id
    AND (:user_id IS NULL OR owner_user_id = :user_id)
    AND (created_at, id) < (:before_created_at, :before_id)
    AND flow_journal <> '[]'
  ORDER BY created_at DESC, id DESC
  LIMIT 1`;

const renewLeases = `
  UPDATE executions SET lease_until = :until
  WHERE lease_owner = :owner AND state = 'RUNNING' AND id IN (SELECT value FROM json_each(:ids))
  RETURNING id`;

// One writer at a time, so the read and the updates below see no other claim in between. Every waiting execution
// is read, since fair turns depend on each token's whole queue.
const selectClaimable = `
  SELECT id, state, lease_owner, created_at, owner_token_id, crew FROM executions
  WHERE state IN ('PENDING', 'RUNNING') AND id NOT IN (SELECT value FROM json_each(:in_hand))
    AND (lease_owner IS NULL OR lease_until IS NULL OR lease_until <= :now)`;

// Leases other processes hold that may have ended: only executions running or waiting now, a bounded set.
const selectLeased = `
  SELECT id, state, lease_owner, created_at, owner_token_id, crew FROM executions
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

// Counts a revision, as every write of an execution's fields does (see applied-change.ts).
const assignCrewless = 'UPDATE executions SET crew = ?, revision = revision + 1 WHERE crew IS NULL';

/** Events written by one statement at most; a change with more (rare) takes several. */
const eventsPerInsert = 16;

/** The insert of `count` events in one statement: a change's events cross into SQLite once, not once each. */
function insertEventsSql(count: number): string {
  const rows = Array.from({ length: count }, () => '(?, ?, ?, ?, ?)').join(', ');
  return `INSERT INTO execution_events (execution_id, sequence, type, data, created_at) VALUES ${rows}`;
}
const insertEvents = Array.from({ length: eventsPerInsert + 1 }, (_, count) => insertEventsSql(count));

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
  const applyChange = (change: ExecutionChange, known: Execution | undefined): Execution | null => {
    // Added to the encoder's literal: on Node 20, fields added after a leading spread take V8's slow path.
    const values = Object.assign(executionChangeValues(change), fromStateValues(change));
    const row = statement(executionUpdateSql(change, known === undefined ? 'row' : 'counters')).get(values);
    if (row === undefined) return null;
    const now = change.now.toISOString();
    const events = change.events ?? [];
    const firstSequence = Number(row.last_event_sequence) - events.length + 1;
    for (let start = 0; start < events.length; start += eventsPerInsert) {
      const some = events.slice(start, start + eventsPerInsert);
      const values: unknown[] = [];
      some.forEach((event, index) => {
        values.push(
          change.executionId,
          firstSequence + start + index,
          event.type,
          eventDataJson(event.data),
          now,
        );
      });
      statement(insertEvents[some.length]!).run(values);
    }
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
    if (known === undefined) return decode.execution(row);
    const written = { revision: Number(row.revision), lastEventSequence: Number(row.last_event_sequence) };
    if (written.revision === known.revision + 1) return appliedChange(known, change, written);
    // Written elsewhere since the caller's copy: the row as it stands now.
    return decode.execution(statement(selectExecution).get(change.executionId)!);
  };

  return {
    createExecution: async (execution) => {
      // Refused inside the write but thrown outside it: a throw would roll back the writes committed with it.
      const result = await writes.write((): CreateExecutionResult | 'full' => {
        const values = newExecutionValues(execution);
        // Without a key there is nothing to repeat: NULL keys never conflict.
        const existing =
          execution.idempotencyKey === null ? undefined : statement(selectByIdempotencyKey).get(values);
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

    latestFlowState: (query) =>
      settle(() => {
        const row = statement(selectLatestFlowState).get(flowStateQueryValues(query));
        return row === undefined ? null : decode.execution(row);
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
        const claimable = [...free, ...orphaned];
        const served = options.crews === undefined ? undefined : new Set(options.crews);
        const ours = new Set(claimable.filter((row) => served?.has(row.crew as string) ?? true));
        // Another crew's waiting executions are not this claim's to take, nor busy: only what runs, or is leased
        // to a live process, counts against its token.
        for (const row of claimable) {
          if (row.state !== 'PENDING' || ours.has(row)) continue;
          const token = row.owner_token_id as string;
          active.set(token, (active.get(token) ?? 0) - 1);
        }
        const candidates = [...ours].map(claimCandidate);
        const tokens = [...new Set(candidates.map((candidate) => candidate.tokenId))];
        const lastStarted = new Map(
          statement(selectLastStarted)
            .all({ tokens: JSON.stringify(tokens) })
            .filter((row) => row.last_started !== null)
            .map((row) => [row.owner_token_id as string, row.last_started as string]),
        );
        const taken = fairTurns(candidates, { active, lastStarted }, options.runningPerToken).slice(0, limit);
        return taken.map((candidate) => {
          statement(claimExecution).run({ owner, until: until.toISOString(), id: candidate.id });
          return { id: candidate.id, state: candidate.state, takenFrom: candidate.leaseOwner };
        });
      }),

    tokenSpend: (tokenId, since, until) =>
      settle(() =>
        spendOf(
          statement(selectTokenSpend).get({
            token: tokenId,
            since: since.toISOString(),
            until: until.toISOString(),
          }),
        ),
      ),

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

    applyChange: async (change, known) => {
      // Before the write is queued: a refused change must not fail the others committed with it.
      checkTransition(change.fromStates, change.state);
      return writes.write(() => applyChange(change, known));
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

function spendOf(row: unknown): Spend {
  const values = row as { tokens: number; cost_usd: number; unpriced: number };
  return {
    tokens: Number(values.tokens),
    costUsd: roundUsd(Number(values.cost_usd)),
    unpricedRequests: Number(values.unpriced),
  };
}
