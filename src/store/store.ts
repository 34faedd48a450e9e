import type { ScheduleStore } from './schedule-store.ts';
import type { Budget, Spend } from '../domain/budget.ts';
import type { ReviewDeadline } from '../domain/review-deadline.ts';
import type { ExecutionLogEvent } from '../domain/execution-log.ts';
import type { AgentStep } from '../domain/events.ts';
import type {
  Execution,
  ExecutionOwner,
  ExecutionState,
  FlowJournalRecord,
  PendingHumanInput,
  WebhookTargets,
} from '../domain/execution.ts';
import type { HumanFeedback, TaskOutput } from '../domain/task-output.ts';
import type { TokenUsage } from '../domain/usage.ts';
import type { CoordinationFeed } from './coordination-feed.ts';

/**
 * The store port. Adapters (sqlite/, postgres/) implement it; it holds data and guarantees atomicity, while every
 * rule about what a change means lives in the service that calls it.
 */
export interface Store
  extends
    ExecutionStore,
    EventStore,
    TokenStore,
    OutboxStore,
    RetentionStore,
    CrewVersionStore,
    ScheduleStore {
  /** Applies pending migrations; safe to call from several processes at once. */
  migrate(): Promise<void>;
  /**
   * Changes committed by other processes sharing the database, and this process's liveness lock: until the feed
   * has started, other processes take this one for gone and may take over what it leases.
   */
  readonly feed: CoordinationFeed;
  /** Resolves when the database answers; rejects otherwise (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface NewExecution {
  readonly id: string;
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly meta: Readonly<Record<string, unknown>> | null;
  readonly webhooks: WebhookTargets;
  readonly owner: ExecutionOwner;
  /** With the owner's token id, makes kickoff idempotent. */
  readonly idempotencyKey: string | null;
  /** A hash of the kickoff body, compared when the same idempotency key comes again. */
  readonly requestHash: string | null;
  readonly createdAt: Date;
  /** Leased at once to the process that will run it, so no other process claims it meanwhile. */
  readonly lease?: ExecutionLease;
  /** The served crew it belongs to (its name), and the version of that crew it runs on. */
  readonly crew?: string;
  readonly crewVersion?: number;
  /**
   * Refuses it, writing nothing, when its owner's token has this many executions waiting already (PENDING and
   * leased to no process; those leased are starting): rejects with
   * `QueueFull`. An idempotent repeat of one already created is answered as always, however full the queue.
   */
  readonly queueLimit?: number;
  /** The kickoff's review deadline, for every human-input task in place of the tasks' own. */
  readonly reviewDeadline?: ReviewDeadline;
  /** What the execution may spend before it pauses for approval. */
  readonly budget?: Budget;
  /** Its token's daily budget, as the token had it at kickoff. */
  readonly dailyBudget?: Budget;
  /** A flow execution's state id, and the state id its run restores its state from (see Execution). */
  readonly flowStateId?: string;
  readonly restoreStateFrom?: string;
}

export type CreateExecutionResult =
  | { readonly created: true; readonly execution: Execution }
  /** An execution with the same owner token and idempotency key exists already. */
  | { readonly created: false; readonly execution: Execution; readonly requestHash: string | null };

export interface ExecutionQuery {
  readonly state?: ExecutionState;
  /** Only executions started by this user's tokens. */
  readonly userId?: string;
  /** Only executions of these crews (by name). */
  readonly crews?: readonly string[];
  readonly limit: number;
  /** Opaque cursor from a previous page's `nextCursor`. */
  readonly cursor?: string;
}

/** Which saved flow state a run may start from: the caller's view of one crew's executions of one state id. */
export interface FlowStateQuery {
  /** The crew (served flow) the executions belong to; another crew's are never found. */
  readonly crew: string;
  readonly stateId: string;
  /** Only executions started by this user's tokens; every user's when absent (an organization token). */
  readonly userId?: string;
  /** Only executions created before this one, in (createdAt, id) order. */
  readonly before: { readonly createdAt: Date; readonly id: string };
}

export interface ExecutionPage {
  /** Newest first. */
  readonly items: readonly Execution[];
  readonly nextCursor: string | null;
}

/** Fields a change may overwrite; absent fields stay as they are. */
export interface ExecutionPatch {
  readonly currentTask?: string | null;
  readonly lastStep?: AgentStep | null;
  readonly usage?: TokenUsage;
  readonly result?: string | null;
  readonly resultJson?: Record<string, unknown> | null;
  readonly error?: string | null;
  readonly webhooks?: WebhookTargets;
  readonly startedAt?: Date;
  readonly finishedAt?: Date;
}

/**
 * One atomic change of an execution: everything here is written in a single transaction, or nothing is.
 * The guards make it a compare-and-set.
 */
export interface ExecutionChange {
  readonly executionId: string;
  /** Applies only while the execution is in one of these states. */
  readonly fromStates: readonly ExecutionState[];
  /** Applies only while the pending human input is exactly this task and attempt. */
  readonly expectPending?: { readonly taskId: string; readonly attempt: number };
  readonly state?: ExecutionState;
  readonly patch?: ExecutionPatch;
  /** Appended to the accepted outputs. */
  readonly appendOutput?: TaskOutput;
  /** Sets (or with null clears) the pending human input. */
  readonly pending?: PendingHumanInput | null;
  readonly appendFeedback?: HumanFeedback;
  /** Appended to a flow execution's journal. */
  readonly appendFlowEntry?: FlowJournalRecord;
  /** Appended to the execution's event log, numbered in order. */
  readonly events?: readonly NewExecutionEvent[];
  /** Webhook messages to deliver once this change is committed. */
  readonly outbox?: readonly NewOutboxMessage[];
  /**
   * Applies only while no other process holds a lease on the execution that is still live at `now`; the lease is
   * then this owner's until `until`, or released when `until` is null. Only the holder of a live lease runs an
   * execution, so two processes never run it at once.
   */
  readonly lease?: ExecutionLease;
  readonly now: Date;
}

export interface ExecutionLease {
  /** The process that runs the execution. */
  readonly owner: string;
  readonly until: Date | null;
}

/** How claims share what is waiting among the tokens that started it. */
export interface ClaimOptions {
  /** Executions one token may have running at once (RUNNING, or PENDING and leased); no limit when absent. */
  readonly runningPerToken?: number;
  /**
   * Only executions of these crews (by the names they are served as): a process claims only what it can run, so
   * another crew's execution is never held by a process that would leave it until its lease ran out. Every
   * crew's when absent.
   */
  readonly crews?: readonly string[];
}

export interface ClaimedExecution {
  readonly id: string;
  readonly state: ExecutionState;
  /** The process whose lease was taken over, or null when no lease was held. */
  readonly takenFrom: string | null;
}

export interface ExecutionStore {
  createExecution(execution: NewExecution): Promise<CreateExecutionResult>;
  getExecution(id: string): Promise<Execution | null>;
  /** The execution's revision alone, or null when it does not exist: a cheap check that a copy is still current. */
  getExecutionRevision(id: string): Promise<number | null>;
  listExecutions(query: ExecutionQuery): Promise<ExecutionPage>;
  /**
   * The newest execution matching the query whose flow run has started (its journal holds its state), through the
   * flow state index; null when there is none.
   */
  latestFlowState(query: FlowStateQuery): Promise<Execution | null>;
  /**
   * Extends this owner's leases on these executions to `until` while they run, and returns the ids it renewed:
   * the others were taken over or left RUNNING (a cancel) elsewhere, and their legs should stop.
   */
  renewLeases(owner: string, executionIds: readonly string[], until: Date): Promise<readonly string[]>;
  /**
   * Leases up to `limit` PENDING or RUNNING executions to `owner` until `until`: those no process holds a live
   * lease on, and those whose holder is another process that is gone (its liveness lock was released); never one of
   * `inHand`, the executions `owner` queues or runs, though their leases ran out. Processes claiming at the same
   * moment never get the same execution.
   * Fair shares: RUNNING executions taken over come first; waiting ones go round-robin across their tokens, each
   * token's oldest first, a token with fewer executions running or leased going before one with more, so one
   * token's burst does not hold back another's kickoff. Ties go to the oldest. With `runningPerToken`, no token is
   * given more than that many at once, counting what it has running already.
   */
  claimExecutions(
    owner: string,
    now: Date,
    until: Date,
    limit: number,
    inHand?: readonly string[],
    options?: ClaimOptions,
  ): Promise<readonly ClaimedExecution[]>;
  /**
   * Paused executions whose pending review has a deadline at or before `now`, earliest first, at most `limit`.
   * Reading them takes nothing: answering one is a guarded change, which exactly one of several processes wins.
   */
  listDueReviews(now: Date, limit: number): Promise<readonly string[]>;
  /**
   * What the model calls of a token's executions committed from `since` until before `until` spent, read from
   * their event logs (calls replayed after a restart or an approval are not logged again, so count once).
   */
  tokenSpend(tokenId: string, since: Date, until: Date): Promise<Spend>;
  /** Releases every lease this owner holds (a clean shutdown), so another process may go on at once. */
  releaseLeases(owner: string): Promise<void>;
  /**
   * Gives executions stored before crews had names (their crew is null) to this crew, the one a server of a single
   * crew served them as; returns how many.
   */
  assignCrewless(crew: string): Promise<number>;
  /**
   * Applies the change when its guards hold; returns the updated execution, or null when they did not. Rejects,
   * writing nothing, a change whose `fromStates` and `state` break the transition table (`checkTransition`).
   * `known`, the execution as the caller last read or wrote it, lets the store build the result from it rather
   * than read the row back, when the change was written directly on top of it (one revision on).
   */
  applyChange(change: ExecutionChange, known?: Execution): Promise<Execution | null>;
  /**
   * Counts executions in `states` (every state when absent) through the state index (metrics); the result has every
   * state's key, with zeros for the states not counted.
   */
  countByState(states?: readonly ExecutionState[]): Promise<Readonly<Record<ExecutionState, number>>>;
}

/** An entry of an execution's event log, as a change appends it (`src/domain/execution-log.ts`). */
export type NewExecutionEvent = ExecutionLogEvent;

/** An entry of an execution's event log as stored, numbered within its execution. */
export type StoredExecutionEvent = ExecutionLogEvent & {
  readonly executionId: string;
  /** 1, 2, 3… within one execution; the SSE event id. */
  readonly sequence: number;
  readonly createdAt: Date;
};

export interface EventStore {
  /** Events with a sequence above `afterSequence`, in order. */
  listEvents(
    executionId: string,
    afterSequence: number,
    limit: number,
  ): Promise<readonly StoredExecutionEvent[]>;
}

export type TokenKind = 'org' | 'user';

export interface TokenRecord {
  readonly id: string;
  readonly kind: TokenKind;
  readonly userId: string | null;
  readonly name: string | null;
  /** The crews (by name) the token is limited to; null for every crew. */
  readonly crews?: readonly string[] | null;
  /** A token made for deploying: it deploys, and does nothing else. */
  readonly deploy?: boolean;
  /** What the token's executions may spend together in a day (UTC); absent for no limit. */
  readonly dailyBudget?: Budget | null;
  /** SHA-256 of the secret, hex; the secret itself is never stored. */
  readonly hash: string;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
}

export interface TokenStore {
  /** Inserts a token; inserting the same hash again is a no-op that returns the existing record. */
  createToken(token: TokenRecord): Promise<TokenRecord>;
  /** The token with this hash if it exists and is not revoked. */
  findActiveToken(hash: string): Promise<TokenRecord | null>;
  listTokens(): Promise<readonly TokenRecord[]>;
  /** Returns false when no such token exists. */
  revokeToken(id: string, now: Date): Promise<boolean>;
}

/** `events` carries the hosted platform's event streaming envelopes; `a2a` A2A push notifications. */
export type WebhookKind = 'task' | 'step' | 'crew' | 'human_input' | 'events' | 'a2a';

export interface NewOutboxMessage {
  /** The `webhook-id` header: the same on every attempt. */
  readonly id: string;
  readonly kind: WebhookKind;
  readonly url: string;
  readonly payload: Readonly<Record<string, unknown>>;
  /** Extra request headers (human-input authentication). Secret: never returned by an endpoint or logged. */
  readonly headers: Readonly<Record<string, string>>;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface OutboxMessage extends NewOutboxMessage {
  readonly executionId: string;
  readonly status: DeliveryStatus;
  /** Attempts made so far. */
  readonly attempts: number;
  readonly nextAttemptAt: Date;
  readonly createdAt: Date;
}

export interface DeliveryAttempt {
  readonly messageId: string;
  readonly attempt: number;
  readonly at: Date;
  readonly statusCode: number | null;
  /** Why the attempt failed, in our words (never the receiver's body). */
  readonly error: string | null;
  readonly durationMs: number;
}

export type DeliveryOutcome =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'retry'; readonly at: Date }
  | { readonly kind: 'failed' };

/** How many messages to one delivery target (`deliveryTargetOf` their URL) a claim may hand out. */
export interface TargetQuota {
  /** Messages in flight to one target at most, those already in flight included. */
  readonly perTarget: number;
  /** Messages already in flight, by target. */
  readonly busy: ReadonlyMap<string, number>;
}

export interface OutboxStore {
  /**
   * Leases up to `limit` due messages for `leaseMs`: only the oldest pending message of each (execution, url)
   * pair, so deliveries to one URL stay in order. A leased message is not handed out again until its lease ends or
   * its holder is gone (its liveness lock was released).
   * With a `quota`, no target gets more than its share, so a slow receiver's backlog cannot fill every slot.
   */
  claimDueMessages(
    now: Date,
    limit: number,
    leaseMs: number,
    quota?: TargetQuota,
  ): Promise<readonly OutboxMessage[]>;
  /** Records an attempt and what happens next, in one transaction. */
  recordDelivery(attempt: DeliveryAttempt, outcome: DeliveryOutcome): Promise<void>;
  /** Messages of one execution with their attempts, oldest first; `headers` are left out. */
  listDeliveries(executionId: string): Promise<readonly DeliveryRecord[]>;
  /** Messages that exhausted their retries (metrics). */
  countFailedMessages(): Promise<number>;
}

export interface DeliveryRecord {
  readonly id: string;
  readonly kind: WebhookKind;
  readonly url: string;
  readonly status: DeliveryStatus;
  readonly createdAt: Date;
  readonly attempts: readonly Omit<DeliveryAttempt, 'messageId'>[];
}

export interface RetentionStore {
  /**
   * Deletes up to `limit` finished executions (SUCCESS, FAILED, REVOKED) that ended before `before`, with their
   * events, webhook messages and delivery attempts, in one transaction; returns their ids. Executions still
   * running, waiting or paused are never deleted, however old.
   */
  deleteFinishedBefore(before: Date, limit: number): Promise<readonly string[]>;
}

/** A crew's files as one version holds them: paths relative to the crew directory, `/`-separated. */
export type CrewFiles = Readonly<Record<string, string>>;

export interface CrewVersionRecord {
  readonly crew: string;
  /** 1, 2, 3… within one crew, in the order they were deployed. */
  readonly version: number;
  /** SHA-256 of the files (`hashCrewFiles`), hex. */
  readonly hash: string;
  readonly createdAt: Date;
}

export interface ServedCrewVersion {
  readonly version: number;
  readonly deployed: number;
}

export interface CrewVersionStore {
  /**
   * Keeps these files as the crew's next version, or finds the version that already holds the same files (by
   * hash); `created` tells which. Safe when processes save at once.
   */
  saveCrewVersion(
    crew: string,
    hash: string,
    files: CrewFiles,
    now: Date,
  ): Promise<{ readonly record: CrewVersionRecord; readonly created: boolean }>;
  /** The version's files, or null when it is not kept. */
  crewVersionFiles(crew: string, version: number): Promise<CrewFiles | null>;
  /** The crew's versions, oldest first, without their files. */
  listCrewVersions(crew: string): Promise<readonly CrewVersionRecord[]>;
  /**
   * The version new kickoffs of the crew use, and the one last deployed from its files (another after a rollback);
   * null before any was served.
   */
  servedCrewVersion(crew: string): Promise<ServedCrewVersion | null>;
  /**
   * Makes `version` the one new kickoffs use (a rollback), and with `deployed` the one last deployed from the
   * crew's files too; false when the crew has no such version, or none was deployed yet and `deployed` is not set.
   */
  serveCrewVersion(crew: string, version: number, now: Date, deployed?: boolean): Promise<boolean>;
  /**
   * Deletes versions kept since before `before` that nothing uses: no stored execution runs on them, and they are
   * neither served nor the one deployed last. Returns how many.
   */
  deleteUnusedCrewVersions(before: Date): Promise<number>;
}
