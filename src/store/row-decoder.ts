import type { Budget } from '../domain/budget.ts';
import type { ReviewDeadline, ReviewOutcome } from '../domain/review-deadline.ts';
import type { AgentStep } from '../domain/events.ts';
import type {
  Execution,
  ExecutionState,
  FlowJournalRecord,
  PendingHumanInput,
  WebhookTargets,
} from '../domain/execution.ts';
import { executionStates } from '../domain/execution.ts';
import type { HumanFeedback, TaskOutput } from '../domain/task-output.ts';
import type { TokenUsage } from '../domain/usage.ts';
import type {
  DeliveryRecord,
  DeliveryStatus,
  OutboxMessage,
  StoredExecutionEvent,
  TokenKind,
  TokenRecord,
  WebhookKind,
} from './store.ts';

export type Row = Readonly<Record<string, unknown>>;

type DeliveryAttemptRecord = DeliveryRecord['attempts'][number];

/** How one driver hands back JSON and timestamp columns (SQLite: text; pg: parsed values). */
export interface RowCodec {
  json(value: unknown): unknown;
  date(value: unknown): Date;
}

/** Turns the rows of the shared table layout into domain records, for either adapter. */
export interface RowDecoder {
  execution(row: Row): Execution;
  event(row: Row): StoredExecutionEvent;
  token(row: Row): TokenRecord;
  outboxMessage(row: Row): OutboxMessage;
  /** Rows of messages left-joined with their attempts, ordered by message then attempt. */
  deliveries(rows: readonly Row[]): DeliveryRecord[];
  stateCounts(rows: readonly Row[]): Record<ExecutionState, number>;
}

export function rowDecoder(codec: RowCodec): RowDecoder {
  const json = <T>(value: unknown): T => codec.json(value) as T;
  const nullableJson = <T>(value: unknown): T | null => (value === null ? null : json<T>(value));
  const nullableDate = (value: unknown): Date | null => (value === null ? null : codec.date(value));
  const text = (value: unknown): string => value as string;
  const nullableText = (value: unknown): string | null => value as string | null;

  return {
    execution: (row) => ({
      id: text(row.id),
      crew: nullableText(row.crew ?? null),
      crewVersion:
        row.crew_version === null || row.crew_version === undefined ? null : Number(row.crew_version),
      state: row.state as ExecutionState,
      inputs: json<Record<string, unknown>>(row.inputs),
      meta: nullableJson<Record<string, unknown>>(row.meta),
      webhooks: json<WebhookTargets>(row.webhooks),
      owner: { tokenId: text(row.owner_token_id), userId: nullableText(row.owner_user_id) },
      outputs: json<TaskOutput[]>(row.outputs),
      feedback: json<HumanFeedback[]>(row.feedback),
      pending: pendingOf(nullableJson<StoredPending>(row.pending)),
      currentTask: nullableText(row.current_task),
      lastStep: nullableJson<AgentStep>(row.last_step),
      usage: json<TokenUsage>(row.usage),
      result: nullableText(row.result),
      resultJson: nullableJson<Record<string, unknown>>(row.result_json),
      error: nullableText(row.error),
      createdAt: codec.date(row.created_at),
      updatedAt: codec.date(row.updated_at),
      lastEventSequence: Number(row.last_event_sequence),
      revision: Number(row.revision),
      startedAt: nullableDate(row.started_at),
      finishedAt: nullableDate(row.finished_at),
      ...(row.review_deadline == null ? {} : { reviewDeadline: json<ReviewDeadline>(row.review_deadline) }),
      ...(row.budget == null ? {} : budgetsOf(json<StoredBudget>(row.budget))),
      ...(row.flow_state_id == null ? {} : { flowStateId: text(row.flow_state_id) }),
      ...(row.restore_state_from == null ? {} : { restoreStateFrom: text(row.restore_state_from) }),
      ...flowJournalOf(row.flow_journal == null ? [] : json<FlowJournalRecord[]>(row.flow_journal)),
    }),

    // The store wrote every entry from the log's union; reading it back trusts that, unchecked (a hot path).
    event: (row) =>
      ({
        executionId: text(row.execution_id),
        sequence: Number(row.sequence),
        type: text(row.type),
        data: json<Record<string, unknown>>(row.data),
        createdAt: codec.date(row.created_at),
      }) as StoredExecutionEvent,

    token: (row) => ({
      id: text(row.id),
      kind: row.kind as TokenKind,
      userId: nullableText(row.user_id),
      name: nullableText(row.name),
      crews: nullableJson<string[]>(row.crews ?? null),
      deploy: row.deploy === true || Number(row.deploy) === 1,
      hash: text(row.hash),
      createdAt: codec.date(row.created_at),
      revokedAt: nullableDate(row.revoked_at),
      ...(row.daily_budget == null ? {} : { dailyBudget: json<Budget>(row.daily_budget) }),
    }),

    outboxMessage: (row) => ({
      id: text(row.id),
      executionId: text(row.execution_id),
      kind: row.kind as WebhookKind,
      url: text(row.url),
      payload: json<Record<string, unknown>>(row.payload),
      headers: json<Record<string, string>>(row.headers),
      status: row.status as DeliveryStatus,
      attempts: Number(row.attempts),
      nextAttemptAt: codec.date(row.next_attempt_at),
      createdAt: codec.date(row.created_at),
    }),

    deliveries: (rows) => {
      const records = new Map<string, DeliveryRecord & { attempts: DeliveryAttemptRecord[] }>();
      for (const row of rows) {
        const id = text(row.id);
        let record = records.get(id);
        if (record === undefined) {
          record = {
            id,
            kind: row.kind as WebhookKind,
            url: text(row.url),
            status: row.status as DeliveryStatus,
            createdAt: codec.date(row.created_at),
            attempts: [],
          };
          records.set(id, record);
        }
        if (row.attempt !== null) {
          record.attempts.push({
            attempt: Number(row.attempt),
            at: codec.date(row.at),
            statusCode: row.status_code === null ? null : Number(row.status_code),
            error: nullableText(row.error),
            durationMs: Number(row.duration_ms),
          });
        }
      }
      return [...records.values()];
    },

    stateCounts: (rows) => {
      const counts = Object.fromEntries(executionStates.map((state) => [state, 0])) as Record<
        ExecutionState,
        number
      >;
      for (const row of rows) counts[row.state as ExecutionState] = Number(row.count);
      return counts;
    },
  };
}

/** A flow execution's journal; nothing for a crew's, whose journal is always empty. */
function flowJournalOf(entries: FlowJournalRecord[]): Pick<Execution, 'flowJournal'> {
  return entries.length === 0 ? {} : { flowJournal: entries };
}

/** The pending review as its JSON holds it: the deadline's time as text. */
type StoredPending = Omit<PendingHumanInput, 'deadline'> & {
  readonly deadline?: { readonly at: string; readonly outcome: ReviewOutcome };
};

function pendingOf(stored: StoredPending | null): PendingHumanInput | null {
  if (stored?.deadline === undefined) return stored as PendingHumanInput | null;
  return { ...stored, deadline: { ...stored.deadline, at: new Date(stored.deadline.at) } };
}

/** The budget column: the execution's own budget, with its token's daily budget under `daily`. */
type StoredBudget = Budget & { readonly daily?: Budget };

function budgetsOf(stored: StoredBudget): Pick<Execution, 'budget' | 'dailyBudget'> {
  const { daily, ...own } = stored;
  return {
    ...(own.tokens === undefined && own.costUsd === undefined ? {} : { budget: own }),
    ...(daily === undefined ? {} : { dailyBudget: daily }),
  };
}
