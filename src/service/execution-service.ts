import type { Budget } from '../domain/budget.ts';
import type { ReviewDeadline } from '../domain/review-deadline.ts';
import type { CrewDefinition } from '../domain/crew.ts';
import type {
  A2aPushTarget,
  EventStreamTarget,
  Execution,
  ExecutionState,
  HumanInputWebhook,
  WebhookTargets,
} from '../domain/execution.ts';
import type { DeliveryRecord, ExecutionPage, StoredExecutionEvent } from '../store/store.ts';

/** Who is calling, from their bearer token. User callers see only the executions they started. */
export interface Caller {
  readonly tokenId: string;
  readonly kind: 'org' | 'user';
  readonly userId: string | null;
  /** The crews (by name) the token is limited to; null or absent for every crew. */
  readonly crews?: readonly string[] | null;
  /** A token made for deploying: it deploys, and does nothing else. */
  readonly deploy?: boolean;
  /** The token's daily budget: its executions of a day spend it together. */
  readonly dailyBudget?: Budget;
}

export interface KickoffRequest {
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly meta: Readonly<Record<string, unknown>> | null;
  readonly webhooks: WebhookTargets;
  readonly idempotencyKey: string | null;
  readonly caller: Caller;
  /** Answers the execution's reviews when their time is up, in place of the tasks' own deadlines. */
  readonly reviewDeadline?: ReviewDeadline | undefined;
  /** What the execution may spend before it pauses for approval, in place of the crew's default. */
  readonly budget?: Budget | undefined;
  /**
   * A flow with flow-level `persist` starts from the latest state saved under this state id, under a new state id
   * (a fork); only states of executions the caller can see are found. Ignored by crews and other flows.
   */
  readonly restoreFromStateId?: string | undefined;
}

export interface ResumeRequest {
  readonly executionId: string;
  readonly taskId: string;
  readonly feedback: string;
  readonly approve: boolean;
  /** Task, step and crew URLs for the next leg (absent ones get nothing more). */
  readonly taskUrl: string | null;
  readonly stepUrl: string | null;
  readonly crewUrl: string | null;
  /** Replaces the kickoff's human-input webhook when given. */
  readonly humanInput: HumanInputWebhook | null;
  /** Event streaming for the next leg; null streams nothing more. */
  readonly events: EventStreamTarget | null;
  /** A2A push configs added by the message that answers the review; the task's own ones stay. */
  readonly a2aPush?: readonly A2aPushTarget[];
  readonly caller: Caller;
}

export type ResumeStatus = 'resumed' | 'retrying' | 'completed';

export interface ResumeResult {
  readonly status: ResumeStatus;
  readonly message: string;
}

export interface ListRequest {
  readonly state?: ExecutionState;
  readonly limit: number;
  readonly cursor?: string;
  readonly caller: Caller;
}

/**
 * What can be asked of executions already started, by id: a served crew's, or those of every crew a server serves
 * (its root, when it serves several). Unknown executions, other users' executions and executions of crews not
 * reached here or not open to the caller's token all throw `CrewdError('NOT_FOUND')`.
 */
export interface ExecutionAccess {
  get(executionId: string, caller: Caller): Promise<Execution>;
  /** The crew definition the execution runs on: the version it started on (loaded by `get` and `list`). */
  crewOf(execution: Execution): CrewDefinition;
  /** Loads the version an execution read elsewhere runs on, so `crewOf` answers for it. */
  loadCrewOf?(execution: Execution): Promise<void>;
  /** Throws `NOT_PENDING_HUMAN_INPUT` when the execution is not paused on that task (or another resume won). */
  resume(request: ResumeRequest): Promise<ResumeResult>;
  /** Stops the execution (aborting a model call in flight) and marks it REVOKED; finished ones stay as they are. */
  cancel(executionId: string, caller: Caller): Promise<Execution>;
  list(request: ListRequest): Promise<ExecutionPage>;
  /**
   * The execution's events after `afterSequence`, then new ones as they happen; ends when the execution is
   * finished and every event was yielded, or when `signal` aborts. Rejects (unknown or not visible to the caller)
   * before anything is streamed.
   */
  openEventStream(
    executionId: string,
    caller: Caller,
    afterSequence: number,
    signal: AbortSignal,
  ): Promise<AsyncIterable<StoredExecutionEvent>>;
  deliveries(executionId: string, caller: Caller): Promise<readonly DeliveryRecord[]>;
  /** Sets the execution's A2A push configs to what `update` makes of them, whatever state it is in. */
  replaceA2aPush(
    executionId: string,
    caller: Caller,
    update: (current: readonly A2aPushTarget[]) => readonly A2aPushTarget[],
  ): Promise<Execution>;
}

/** What the HTTP API (and any other front end) can ask of one served crew. */
export interface ExecutionService extends ExecutionAccess {
  /** The crew new kickoffs run on. */
  readonly crew: CrewDefinition;
  /** Saves the execution, then queues it to run; throws `MissingInputsError` and `IDEMPOTENCY_CONFLICT`. */
  kickoff(request: KickoffRequest): Promise<{ readonly kickoffId: string }>;
}
