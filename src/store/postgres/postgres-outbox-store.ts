import { CrewdError } from '../../domain/errors.ts';
import { deliveryValues } from '../row-encoder.ts';
import type { OutboxStore } from '../store.ts';
import { livenessKeySql, liveOwnerKeys } from './liveness.ts';
import { namedQuery } from './named-query.ts';
import type { PostgresContext } from './postgres-context.ts';

// A message is due only when no older message to the same (execution, url) is still pending, so one URL receives an
// execution's messages in order. Each delivery target (`deliveryTargetOf`: the URL up to the first '/' after '://',
// lower-cased) gets at most its quota, counting what is already in flight to it. SKIP LOCKED lets several processes
// claim at once without handing a message out twice. A message leased by a process that is gone (its liveness lock
// released) is due again at once, as its executions are.
const claimMessages = namedQuery(
  'claim_outbox_messages',
  `WITH live AS MATERIALIZED (${liveOwnerKeys}),
   candidates AS (
     SELECT message.seq, message.next_attempt_at,
       lower(substring(message.url from '^[^:]*://[^/]*')) AS target
     FROM outbox_messages AS message
     WHERE message.status = 'pending'
       AND message.next_attempt_at <= :now::timestamptz
       AND (message.lease_until IS NULL OR message.lease_until <= :now::timestamptz
         OR ${livenessKeySql('message.lease_owner')} NOT IN (SELECT objid FROM live))
       AND NOT EXISTS (
         SELECT 1 FROM outbox_messages AS older
         WHERE older.execution_id = message.execution_id AND older.url = message.url
           AND older.status = 'pending' AND older.seq < message.seq)
   ), ranked AS (
     SELECT candidates.seq, candidates.next_attempt_at,
       row_number() OVER (PARTITION BY candidates.target ORDER BY candidates.next_attempt_at, candidates.seq)
         + coalesce((:busy::jsonb ->> candidates.target)::int, 0) AS position
     FROM candidates
   ), due AS (
     -- The conditions again on the row itself: a row another claim leased and committed meanwhile is checked
     -- again when it is locked, and left out.
     SELECT message.seq FROM outbox_messages AS message
     JOIN ranked ON ranked.seq = message.seq
     WHERE ranked.position <= :per_target::bigint
       AND message.status = 'pending'
       AND (message.lease_until IS NULL OR message.lease_until <= :now::timestamptz
         OR ${livenessKeySql('message.lease_owner')} NOT IN (SELECT objid FROM live))
     ORDER BY ranked.next_attempt_at, ranked.seq
     LIMIT :limit::bigint
     FOR UPDATE OF message SKIP LOCKED
   ), claimed AS (
     UPDATE outbox_messages AS message SET lease_until = :lease_until::timestamptz, lease_owner = :owner::text
     FROM due WHERE message.seq = due.seq
     RETURNING message.*
   )
   SELECT * FROM claimed ORDER BY seq`,
);

const recordDelivery = namedQuery(
  'record_delivery',
  `WITH message AS (
     UPDATE outbox_messages SET
       attempts = attempts + 1,
       status = :status::text,
       next_attempt_at = coalesce(:next_attempt_at::timestamptz, next_attempt_at),
       lease_until = NULL
     WHERE id = :message_id::text
     RETURNING id
   )
   INSERT INTO delivery_attempts (message_id, attempt, at, status_code, error, duration_ms)
   SELECT message.id, :attempt::int, :at::timestamptz, :status_code::int, :error::text, :duration_ms::float8
   FROM message
   RETURNING message_id`,
);

const selectDeliveries = namedQuery(
  'select_deliveries',
  `SELECT message.id, message.kind, message.url, message.status, message.created_at,
     attempt.attempt, attempt.at, attempt.status_code, attempt.error, attempt.duration_ms
   FROM outbox_messages AS message
   LEFT JOIN delivery_attempts AS attempt ON attempt.message_id = message.id
   WHERE message.execution_id = :execution_id
   ORDER BY message.seq, attempt.id`,
);

const countFailed = namedQuery(
  'count_failed_messages',
  "SELECT count(*)::int AS count FROM outbox_messages WHERE status = 'failed'",
);

/** No quota: any number of messages to one target. */
const unlimited = Number.MAX_SAFE_INTEGER;

/** `owner`: this process, whose liveness lock keeps the messages it claimed its own. */
export function postgresOutboxStore({ query, decode }: PostgresContext, owner: string): OutboxStore {
  return {
    claimDueMessages: async (now, limit, leaseMs, quota) =>
      (
        await query(claimMessages, {
          owner,
          now: now.toISOString(),
          lease_until: new Date(now.getTime() + leaseMs).toISOString(),
          limit,
          per_target: quota?.perTarget ?? unlimited,
          busy: JSON.stringify(Object.fromEntries(quota?.busy ?? [])),
        })
      ).map((row) => decode.outboxMessage(row)),

    recordDelivery: async (attempt, outcome) => {
      const rows = await query(recordDelivery, deliveryValues(attempt, outcome));
      if (rows.length === 0) throw new CrewdError('NOT_FOUND', 'Unknown outbox message');
    },

    listDeliveries: async (executionId) =>
      decode.deliveries(await query(selectDeliveries, { execution_id: executionId })),

    countFailedMessages: async () => Number((await query(countFailed))[0]?.count),
  };
}
