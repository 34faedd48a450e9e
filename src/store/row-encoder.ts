import { emptyUsage } from '../domain/usage.ts';
import type {
  DeliveryAttempt,
  DeliveryOutcome,
  ExecutionChange,
  ExecutionQuery,
  FlowStateQuery,
  NewExecution,
  TokenRecord,
} from './store.ts';
import { decodeExecutionCursor } from './execution-cursor.ts';

/**
 * Named statement values, shared by both adapters so they bind exactly the same data: JSON as text, dates as ISO
 * strings, flags as 0/1 (SQLite binds no booleans). Names match the `:name` placeholders in their SQL.
 */
export type RowValues = Record<string, string | number | null>;

function json(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

function iso(date: Date | null | undefined): string | null {
  return date ? date.toISOString() : null;
}

/** 1 when the field is present, so `null` can mean "clear" and absence "keep". */
function present(value: unknown): number {
  return value === undefined ? 0 : 1;
}

export function newExecutionValues(execution: NewExecution): RowValues {
  return {
    id: execution.id,
    state: 'PENDING',
    inputs: JSON.stringify(execution.inputs),
    meta: json(execution.meta),
    webhooks: JSON.stringify(execution.webhooks),
    owner_token_id: execution.owner.tokenId,
    owner_user_id: execution.owner.userId,
    idempotency_key: execution.idempotencyKey,
    request_hash: execution.requestHash,
    usage: JSON.stringify(emptyUsage),
    created_at: execution.createdAt.toISOString(),
    lease_owner: execution.lease?.owner ?? null,
    lease_until: iso(execution.lease?.until),
    crew: execution.crew ?? null,
    crew_version: execution.crewVersion ?? null,
    review_deadline: json(execution.reviewDeadline),
    flow_state_id: execution.flowStateId ?? null,
    restore_state_from: execution.restoreStateFrom ?? null,
    // The token's daily budget travels in the same column, under `daily`.
    budget:
      execution.budget === undefined && execution.dailyBudget === undefined
        ? null
        : JSON.stringify({
            ...execution.budget,
            ...(execution.dailyBudget === undefined ? {} : { daily: execution.dailyBudget }),
          }),
  };
}

/** Values for the guarded update; `from_states` is left to the adapter, which binds lists its own way. */
export function executionChangeValues(change: ExecutionChange): RowValues {
  const patch = change.patch ?? {};
  return {
    id: change.executionId,
    expect_task: change.expectPending?.taskId ?? null,
    expect_attempt: change.expectPending?.attempt ?? null,
    state: change.state ?? null,
    set_current_task: present(patch.currentTask),
    current_task: patch.currentTask ?? null,
    set_last_step: present(patch.lastStep),
    last_step: json(patch.lastStep),
    usage: json(patch.usage),
    set_result: present(patch.result),
    result: patch.result ?? null,
    set_result_json: present(patch.resultJson),
    result_json: json(patch.resultJson),
    set_error: present(patch.error),
    error: patch.error ?? null,
    webhooks: json(patch.webhooks),
    started_at: iso(patch.startedAt),
    finished_at: iso(patch.finishedAt),
    append_output: json(change.appendOutput),
    append_feedback: json(change.appendFeedback),
    append_flow_entry: json(change.appendFlowEntry),
    set_pending: present(change.pending),
    pending: json(change.pending),
    pending_deadline: iso(change.pending?.deadline?.at),
    event_count: change.events?.length ?? 0,
    lease_owner: change.lease?.owner ?? null,
    set_lease: present(change.lease),
    lease_holder: change.lease?.until == null ? null : change.lease.owner,
    lease_until: iso(change.lease?.until),
    now: change.now.toISOString(),
  };
}

export function executionQueryValues(query: ExecutionQuery): RowValues {
  const cursor = query.cursor === undefined ? null : decodeExecutionCursor(query.cursor);
  return {
    state: query.state ?? null,
    user_id: query.userId ?? null,
    crews: query.crews === undefined ? null : JSON.stringify(query.crews),
    cursor_created_at: iso(cursor?.createdAt),
    cursor_id: cursor?.id ?? null,
    // One more than asked, to learn whether another page follows.
    limit: query.limit + 1,
  };
}

export function flowStateQueryValues(query: FlowStateQuery): RowValues {
  return {
    crew: query.crew,
    state_id: query.stateId,
    user_id: query.userId ?? null,
    before_created_at: query.before.createdAt.toISOString(),
    before_id: query.before.id,
  };
}

export function tokenValues(token: TokenRecord): RowValues {
  return {
    id: token.id,
    kind: token.kind,
    user_id: token.userId,
    name: token.name,
    crews: json(token.crews),
    deploy: token.deploy === true ? 1 : 0,
    hash: token.hash,
    created_at: token.createdAt.toISOString(),
    revoked_at: iso(token.revokedAt),
    daily_budget: json(token.dailyBudget),
  };
}

export function deliveryValues(attempt: DeliveryAttempt, outcome: DeliveryOutcome): RowValues {
  return {
    message_id: attempt.messageId,
    attempt: attempt.attempt,
    at: attempt.at.toISOString(),
    status_code: attempt.statusCode,
    error: attempt.error,
    duration_ms: attempt.durationMs,
    status: outcome.kind === 'retry' ? 'pending' : outcome.kind,
    next_attempt_at: outcome.kind === 'retry' ? outcome.at.toISOString() : null,
  };
}
