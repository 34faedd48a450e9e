import { CrewdError } from '../../domain/errors.ts';
import { deliveryValues } from '../row-encoder.ts';
import type { DeliveryAttempt, DeliveryOutcome, OutboxStore } from '../store.ts';
import { endedProcesses, type ProcessLocks } from './process-locks.ts';
import type { SqliteContext } from './sqlite-context.ts';
import { settle } from './sqlite-context.ts';

// A message is due only when no older message to the same (execution, url) is still pending, so one URL receives an
// execution's messages in order.
// The delivery target (`deliveryTargetOf`): the URL up to the first '/' after '://', lower-cased.
const target = `lower(substr(message.url, 1,
  instr(substr(message.url, instr(message.url, '://') + 3) || '/', '/') + instr(message.url, '://') + 1))`;

// A message is due only when no older message to the same (execution, url) is still pending, so one URL receives an
// execution's messages in order. Each target gets at most its quota, counting what is already in flight to it. A
// message leased by a process that is gone (one of :ended) is due again at once, as its executions are.
const claimMessages = `
  UPDATE outbox_messages SET lease_until = :lease_until, lease_owner = :owner
  WHERE seq IN (
    SELECT seq FROM (
      SELECT message.seq, message.next_attempt_at,
        row_number() OVER (PARTITION BY ${target} ORDER BY message.next_attempt_at, message.seq) AS position,
        coalesce((SELECT busy.value FROM json_each(:busy) AS busy WHERE busy.key = ${target}), 0) AS busy
      FROM outbox_messages AS message
      WHERE message.status = 'pending'
        AND message.next_attempt_at <= :now
        AND (message.lease_until IS NULL OR message.lease_until <= :now
          OR message.lease_owner IN (SELECT value FROM json_each(:ended)))
        AND NOT EXISTS (
          SELECT 1 FROM outbox_messages AS older
          WHERE older.execution_id = message.execution_id AND older.url = message.url
            AND older.status = 'pending' AND older.seq < message.seq))
    WHERE position + busy <= :per_target
    ORDER BY next_attempt_at, seq
    LIMIT :limit)
  RETURNING *`;

// Other processes holding messages. Only one writer at a time: they still hold them when the claim below runs.
const selectLeaseOwners = `
  SELECT DISTINCT lease_owner FROM outbox_messages
  WHERE status = 'pending' AND lease_owner IS NOT NULL AND lease_owner <> :owner AND lease_until > :now`;

const updateMessage = `
  UPDATE outbox_messages SET
    attempts = attempts + 1,
    status = :status,
    next_attempt_at = coalesce(:next_attempt_at, next_attempt_at),
    lease_until = NULL
  WHERE id = :message_id`;

const insertAttempt = `
  INSERT INTO delivery_attempts (message_id, attempt, at, status_code, error, duration_ms)
  VALUES (:message_id, :attempt, :at, :status_code, :error, :duration_ms)`;

const selectDeliveries = `
  SELECT message.id, message.kind, message.url, message.status, message.created_at,
    attempt.attempt, attempt.at, attempt.status_code, attempt.error, attempt.duration_ms
  FROM outbox_messages AS message
  LEFT JOIN delivery_attempts AS attempt ON attempt.message_id = message.id
  WHERE message.execution_id = ?
  ORDER BY message.seq, attempt.id`;

const countFailed = "SELECT count(*) AS count FROM outbox_messages WHERE status = 'failed'";

/** `owner`: this process, whose liveness lock (`locks`) keeps the messages it claimed its own. */
export function sqliteOutboxStore(
  { statement, decode, writes }: SqliteContext,
  owner: string,
  locks: ProcessLocks,
): OutboxStore {
  // Runs inside a write transaction.
  const recordDelivery = (attempt: DeliveryAttempt, outcome: DeliveryOutcome): void => {
    const values = deliveryValues(attempt, outcome);
    if (statement(updateMessage).run(values).changes === 0) {
      throw new CrewdError('NOT_FOUND', 'Unknown outbox message');
    }
    statement(insertAttempt).run(values);
  };

  return {
    claimDueMessages: (now, limit, leaseMs, quota) =>
      writes.write(() => {
        const holders = statement(selectLeaseOwners)
          .all({ now: now.toISOString(), owner })
          .map((row) => row.lease_owner as string);
        return statement(claimMessages)
          .all({
            owner,
            ended: JSON.stringify([...endedProcesses(locks, holders)]),
            now: now.toISOString(),
            lease_until: new Date(now.getTime() + leaseMs).toISOString(),
            limit,
            per_target: quota?.perTarget ?? Number.MAX_SAFE_INTEGER,
            busy: JSON.stringify(Object.fromEntries(quota?.busy ?? [])),
          })
          .sort((a, b) => Number(a.seq) - Number(b.seq))
          .map((row) => decode.outboxMessage(row));
      }),

    recordDelivery: (attempt, outcome) => writes.write(() => recordDelivery(attempt, outcome)),

    listDeliveries: (executionId) =>
      settle(() => decode.deliveries(statement(selectDeliveries).all(executionId))),

    countFailedMessages: () => settle(() => Number(statement(countFailed).get()?.count)),
  };
}
