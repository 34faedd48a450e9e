import type { Budget, BudgetReached } from './budget.ts';
import type { AgentStep } from './events.ts';
import type { DueReview, ReviewDeadline } from './review-deadline.ts';
import type { HumanFeedback, TaskOutput } from './task-output.ts';
import type { TokenUsage } from './usage.ts';

export const executionStates = ['PENDING', 'RUNNING', 'PAUSED', 'SUCCESS', 'FAILED', 'REVOKED'] as const;
export type ExecutionState = (typeof executionStates)[number];

/**
 * Allowed state changes. Every change that moves an execution is checked against this table by
 * `checkTransition`, which both stores call before they write.
 */
export const transitions: Record<ExecutionState, readonly ExecutionState[]> = {
  PENDING: ['RUNNING', 'FAILED', 'REVOKED'],
  RUNNING: ['PAUSED', 'SUCCESS', 'FAILED', 'REVOKED'],
  PAUSED: ['PENDING', 'SUCCESS', 'FAILED', 'REVOKED'],
  SUCCESS: [],
  FAILED: [],
  REVOKED: [],
};

export function canTransition(from: ExecutionState, to: ExecutionState): boolean {
  return transitions[from].includes(to);
}

/** Every state from which an execution may move to `to`, in the order of `executionStates`. */
export function statesLeadingTo(to: ExecutionState): readonly ExecutionState[] {
  return executionStates.filter((from) => canTransition(from, to));
}

/**
 * Throws when a change that applies only in `fromStates` would move an execution to `to` against the table: a
 * defect in crewd, never a request's fault. A change that keeps the state (`to` undefined, or the state it applies in) moves nothing.
 */
export function checkTransition(fromStates: readonly ExecutionState[], to: ExecutionState | undefined): void {
  if (to === undefined) return;
  const refused = fromStates.filter((from) => from !== to && !canTransition(from, to));
  if (refused.length > 0) {
    throw new Error(`An execution may not move from ${refused.join(', ')} to ${to}`);
  }
}

/** The states an execution ends in: nothing moves it further. */
export const finishedStates = ['SUCCESS', 'FAILED', 'REVOKED'] as const;
export type FinishedState = (typeof finishedStates)[number];

export function isFinished(state: ExecutionState): state is FinishedState {
  return transitions[state].length === 0;
}

export type WebhookAuthentication =
  | { readonly strategy: 'bearer'; readonly token: string }
  | { readonly strategy: 'basic'; readonly username: string; readonly password: string };

export interface HumanInputWebhook {
  readonly url: string;
  readonly authentication?: WebhookAuthentication;
}

/**
 * Event streaming as the hosted platform offers it: crewAI's events, in `{events: [...]}` envelopes, to one URL.
 * `types` null means every event; `realtime` sends each event alone, otherwise the events of one commit travel
 * together.
 */
export interface EventStreamTarget {
  readonly url: string;
  readonly types: readonly string[] | null;
  readonly realtime: boolean;
  readonly authentication?: WebhookAuthentication;
}

/**
 * An A2A client's push notification config for one task (A2A `TaskPushNotificationConfig`): every state change of
 * the execution is posted to `url` as the A2A task, through the webhook outbox.
 */
export interface A2aPushTarget {
  /** The config's id, unique within the task. */
  readonly id: string;
  readonly url: string;
  /** Sent back as `X-A2A-Notification-Token` so the receiver can tell the notification is for it. */
  readonly token: string | null;
  /** `Authorization: <scheme> <credentials>` on each notification, when the client asked for it. */
  readonly authentication: { readonly scheme: string; readonly credentials: string } | null;
  /** The A2A protocol version the config was set over: the notification body is that version's task object. */
  readonly protocol: '0.3' | '1.0';
}

/**
 * Where notifications go. Task, step and crew URLs hold for one leg (kickoff, then each /resume);
 * the human-input webhook stays until a /resume replaces it.
 */
export interface WebhookTargets {
  readonly taskUrl: string | null;
  readonly stepUrl: string | null;
  readonly crewUrl: string | null;
  readonly humanInput: HumanInputWebhook | null;
  /** Event streaming for this leg, like the task, step and crew URLs; absent in executions stored before it. */
  readonly events?: EventStreamTarget | null;
  /** A2A push notification configs: unlike the URLs above they hold for the whole execution. */
  readonly a2aPush?: readonly A2aPushTarget[];
}

export const noWebhooks: WebhookTargets = { taskUrl: null, stepUrl: null, crewUrl: null, humanInput: null };

/**
 * One entry of a flow execution's journal, as the flow runner wrote it: the store keeps it as JSON and never looks
 * inside (the flow layer owns its shape).
 */
export type FlowJournalRecord = Readonly<Record<string, unknown>>;

/** How a flow's `human_feedback` method asks for its review. */
export interface FlowReviewRequest {
  readonly message: string;
  /** The outcomes the feedback is mapped to; absent when the method does not route. */
  readonly emit?: readonly string[];
}

/** A task output waiting for a person's feedback. */
export interface PendingHumanInput {
  readonly taskId: string;
  readonly attempt: number;
  readonly output: TaskOutput;
  /** Set when a flow method waits: what the reviewer is asked, and the outcomes to choose from. */
  readonly review?: FlowReviewRequest;
  /** When the review is answered without a person, and how; absent when it waits for one however long. */
  readonly deadline?: DueReview;
  /**
   * Set when the pause is not a task's review but a budget about to be passed: the task waits before its next
   * model call, `output` says what was spent, and an approval adds the budget's first amounts again.
   */
  readonly budget?: BudgetReached;
}

/** Who started an execution: user tokens see only their own. */
export interface ExecutionOwner {
  readonly tokenId: string;
  /** Set for user tokens; null for organization tokens. */
  readonly userId: string | null;
}

export interface Execution {
  readonly id: string;
  /**
   * The served crew it belongs to, by name: under another crew's base URL it does not exist. Null only for
   * executions stored before crews had names, until a server gives them to its first crew.
   */
  readonly crew?: string | null;
  /** The version of that crew it started on, and runs, pauses and resumes on; null before versions were kept. */
  readonly crewVersion?: number | null;
  readonly state: ExecutionState;
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly meta: Readonly<Record<string, unknown>> | null;
  readonly webhooks: WebhookTargets;
  readonly owner: ExecutionOwner;
  /** Accepted task outputs in task order: finished tasks and approved human-input tasks. */
  readonly outputs: readonly TaskOutput[];
  readonly feedback: readonly HumanFeedback[];
  /** A flow execution's journal (its completed methods and their bookkeeping); empty for a crew's. */
  readonly flowJournal?: readonly FlowJournalRecord[];
  /** A flow execution's state id (`state.id`), fixed at kickoff; absent for a crew's, and for flows kicked off before it was kept. */
  readonly flowStateId?: string | null;
  /**
   * The state id whose latest saved state a flow execution's run starts from (its own, restored by id, or
   * another, forked), found when the run starts; absent or null for a run from a fresh state.
   */
  readonly restoreStateFrom?: string | null;
  readonly pending: PendingHumanInput | null;
  readonly currentTask: string | null;
  readonly lastStep: AgentStep | null;
  readonly usage: TokenUsage;
  readonly result: string | null;
  readonly resultJson: Record<string, unknown> | null;
  readonly error: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** The sequence of the execution's latest event: its event log holds events 1 to this. */
  readonly lastEventSequence: number;
  /** Counts the changes the execution has seen: a reader holding this revision holds its latest state. */
  readonly revision: number;
  readonly startedAt: Date | null;
  readonly finishedAt: Date | null;
  /** The kickoff's review deadline, which every human-input task's pause takes in place of its own; absent when none. */
  readonly reviewDeadline?: ReviewDeadline;
  /** What the execution may spend before it pauses for approval (the kickoff's, else crew.yaml's); absent: no limit. */
  readonly budget?: Budget;
  /** Its token's daily budget, as the token had it at kickoff: the token's executions of a day spend it together. */
  readonly dailyBudget?: Budget;
}
