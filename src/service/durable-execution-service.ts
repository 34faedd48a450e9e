import { checkInputs } from '../crew/placeholders.ts';
import type { Budget } from '../domain/budget.ts';
import { checkUnitInputs } from './runnable-unit.ts';
import { hashJson } from '../domain/canonical-json.ts';
import type { CrewDefinition } from '../domain/crew.ts';
import { reachesCrew } from '../domain/crew-name.ts';
import { CrewdError } from '../domain/errors.ts';
import { QueueFull, QueueFullError } from '../domain/queue-full-error.ts';
import {
  isFinished,
  statesLeadingTo,
  type A2aPushTarget,
  type Execution,
  type PendingHumanInput,
  type WebhookTargets,
} from '../domain/execution.ts';
import type { HumanFeedback } from '../domain/task-output.ts';
import type { FlowDefinition } from '../flow/flow-definition.ts';
import { kickoffState } from '../flow/state-restore.ts';
import { approvalCompletes } from '../engine/execution-standing.ts';
import type {
  DeliveryRecord,
  ExecutionChange,
  ExecutionLease,
  ExecutionPage,
  NewOutboxMessage,
  StoredExecutionEvent,
  Store,
} from '../store/store.ts';
import type { CrewVersionSource } from './crew-version-source.ts';
import type { Dispatcher, Reservation } from './dispatcher.ts';
import type { EventHub } from './event-hub.ts';
import { eventRecord, executionEndType } from './event-records.ts';
import { encodeExecutionCursor } from '../store/execution-cursor.ts';
import { executionWeight } from './execution-weight.ts';
import { RecentExecutions } from './recent-executions.ts';
import type {
  Caller,
  ExecutionService,
  KickoffRequest,
  ListRequest,
  ResumeRequest,
  ResumeResult,
} from './execution-service.ts';
import type { ExecutionRunner } from './execution-runner.ts';
import type { Notifications } from './notifications.ts';

export interface CrewServiceDeps {
  readonly crew: CrewDefinition;
  /**
   * The served crew's name: its executions record it, and executions of other crews do not exist here. Without it
   * the service sees every execution in the store (a store only ever used for one crew).
   */
  readonly name?: string;
  /** The crew's versions; without them every execution runs on `crew`. */
  readonly versions?: CrewVersionSource;
  readonly store: Store;
  readonly runner: ExecutionRunner;
  readonly dispatcher: Dispatcher;
  readonly notifications: Notifications;
  readonly events: EventHub;
  readonly clock: () => Date;
  readonly newId: () => string;
  /** Called after every committed change, so event streams and the webhook worker learn of it at once. */
  readonly onCommitted: (execution: Execution, change: ExecutionChange) => void;
  /** This process's lease owner name and lease length: work it has room for is leased to it as it is queued. */
  readonly lease: { readonly owner: string; readonly durationMs: number };
  /** How long an event stream waits for a publication or a nudge before reading the store anyway (default 1 s). */
  readonly eventPollMs?: number;
  /** Fair shares among tokens (`CREWD_TOKEN_CONCURRENCY`, `CREWD_QUEUE_LIMIT`); none when absent. */
  readonly limits?: ExecutionLimits;
  /** Asks for a claim now: work was left waiting for one (under a limit per token, all new work is). */
  readonly wakeClaims?: () => void;
}

/** Operator limits per token. */
export interface ExecutionLimits {
  /** Executions one token may have running at once; the rest wait as PENDING. */
  readonly runningPerToken?: number;
  /** Executions one token may have waiting; a kickoff past it is refused with 429. */
  readonly queuedPerToken?: number;
}

/** Seconds a kickoff refused for a full queue is asked to wait: about the time a few executions take to start. */
export const queueFullRetryAfterSeconds = 5;

const defaultEventPollMs = 1000;
const eventPageSize = 500;
/** Recently read executions kept for status polls: at most this many estimated bytes, and at most this many. */
export const recentCacheBytes = 16 * 1024 * 1024;
export const recentCacheEntries = 1000;

/** What one page of `GET /executions` may hold, by estimated bytes; it always holds at least one execution. */
export const listPageBytes = 2 * 1024 * 1024;

function withinBytes(page: ExecutionPage, maxBytes: number): ExecutionPage {
  let bytes = 0;
  for (const [index, execution] of page.items.entries()) {
    bytes += executionWeight(execution);
    if (bytes > maxBytes && index > 0) {
      const items = page.items.slice(0, index);
      return { items, nextCursor: encodeExecutionCursor(items.at(-1)!) };
    }
  }
  return page;
}

/**
 * A page of executions the caller may see, of these crews (of every crew when absent). A page holds at most
 * `limit` executions, and fewer when their status objects would pass `listPageBytes`.
 */
export async function listExecutions(
  store: Store,
  request: ListRequest,
  crews: readonly string[] | undefined,
): Promise<ExecutionPage> {
  const page = await store.listExecutions({
    limit: request.limit,
    ...(request.state === undefined ? {} : { state: request.state }),
    ...(request.cursor === undefined ? {} : { cursor: request.cursor }),
    ...(request.caller.userId === null ? {} : { userId: request.caller.userId }),
    ...(crews === undefined ? {} : { crews }),
  });
  return withinBytes(page, listPageBytes);
}

/** The execution service: kickoff, status, resume and cancel over the store, with runs handed to a dispatcher. */
export class DurableExecutionService implements ExecutionService {
  readonly #recent = new RecentExecutions(recentCacheBytes, recentCacheEntries);

  constructor(private readonly deps: CrewServiceDeps) {}

  /** The crew new kickoffs run on: the version served now. */
  get crew(): CrewDefinition {
    return this.deps.versions?.current ?? this.deps.crew;
  }

  /** Forgets a copy kept of an execution that was deleted, so it is not served from memory any more. */
  forgetDeleted(executionId: string): void {
    this.#recent.forget(executionId);
  }

  /**
   * A slot in this process and a lease for work it will start at once, or no lease when it is full: the execution
   * then waits unleased, for a process with room to claim it. The slot is held until the execution is queued (or
   * the reservation released), so requests arriving together are never all promised the same free slot.
   */
  #leaseIfRoom(now: Date): { slot: Reservation; lease?: ExecutionLease } {
    // Under a limit per token only a claim, which counts the token's running executions, may start work.
    const slot = this.deps.dispatcher.reserve(this.deps.limits?.runningPerToken === undefined ? 1 : 0);
    if (slot.size === 0) return { slot };
    const { owner, durationMs } = this.deps.lease;
    return { slot, lease: { owner, until: new Date(now.getTime() + durationMs) } };
  }

  async kickoff(request: KickoffRequest): Promise<{ kickoffId: string }> {
    const served = await this.deps.versions?.versionForKickoff();
    if (served === undefined) checkInputs(this.crew, request.inputs);
    else checkUnitInputs(served.unit, request.inputs, request.restoreFromStateId);
    const requestHash =
      request.idempotencyKey === null
        ? null
        : hashJson({
            inputs: request.inputs,
            meta: request.meta,
            webhooks: request.webhooks,
            // Only when given, so the hashes of kickoffs without one stay what they were.
            ...(request.reviewDeadline === undefined ? {} : { reviewDeadline: request.reviewDeadline }),
            ...(request.budget === undefined ? {} : { budget: request.budget }),
            ...(request.restoreFromStateId === undefined
              ? {}
              : { restoreFromStateId: request.restoreFromStateId }),
          });
    const createdAt = this.deps.clock();
    const { slot, lease } = this.#leaseIfRoom(createdAt);
    const queueLimit = this.deps.limits?.queuedPerToken;
    try {
      const result = await this.deps.store
        .createExecution({
          id: this.deps.newId(),
          inputs: request.inputs,
          meta: request.meta,
          webhooks: request.webhooks,
          owner: { tokenId: request.caller.tokenId, userId: request.caller.userId },
          idempotencyKey: request.idempotencyKey,
          requestHash,
          createdAt,
          ...(lease === undefined ? {} : { lease }),
          ...(this.deps.name === undefined ? {} : { crew: this.deps.name }),
          ...(served === undefined ? {} : { crewVersion: served.version }),
          ...(queueLimit === undefined ? {} : { queueLimit }),
          ...(request.reviewDeadline === undefined ? {} : { reviewDeadline: request.reviewDeadline }),
          ...budgetOf(request, served?.crew ?? this.crew),
          ...(served?.unit.kind === 'flow' ? this.#flowState(served.unit.flow, request) : {}),
        })
        .catch((error: unknown) => {
          if (error instanceof QueueFull && queueLimit !== undefined) {
            throw new QueueFullError(queueLimit, queueFullRetryAfterSeconds);
          }
          throw error;
        });
      if (!result.created && result.requestHash !== requestHash) {
        throw new CrewdError(
          'IDEMPOTENCY_CONFLICT',
          'This Idempotency-Key was already used with a different request body',
        );
      }
      if (result.created && lease !== undefined) {
        this.deps.events.created(result.execution);
        slot.submit(result.execution.id, result.execution);
      }
      if (result.created && lease === undefined) this.deps.wakeClaims?.();
      return { kickoffId: result.execution.id };
    } finally {
      slot.release();
    }
  }

  /**
   * A flow execution's state id, and the state id its run restores from (see kickoffState). The state itself is
   * found when the run starts, among the executions of this crew its owner can see, as `get` shows them.
   */
  #flowState(
    flow: FlowDefinition,
    request: KickoffRequest,
  ): { flowStateId: string; restoreStateFrom?: string } {
    const start = kickoffState(flow, request.inputs, request.restoreFromStateId, this.deps.newId);
    return {
      flowStateId: start.stateId,
      ...(start.restoreFrom === null || this.deps.name === undefined
        ? {}
        : { restoreStateFrom: start.restoreFrom }),
    };
  }

  async get(executionId: string, caller: Caller): Promise<Execution> {
    return this.#reachable(executionId, await this.#read(executionId), caller);
  }

  /** The execution when the caller may see it; any copy of it tells, since owner and crew never change. */
  async #reachable(executionId: string, execution: Execution | null, caller: Caller): Promise<Execution> {
    if (execution === null || !visibleTo(execution, caller) || !this.#holds(execution, caller)) {
      throw new CrewdError('NOT_FOUND', `No execution with id ${executionId}`);
    }
    await this.loadCrewOf(execution);
    return execution;
  }

  crewOf(execution: Execution): CrewDefinition {
    return this.deps.versions?.definitionOf(execution.crewVersion) ?? this.deps.crew;
  }

  /** Loads the version the execution runs on, so `crewOf` answers for it. */
  async loadCrewOf(execution: Execution): Promise<void> {
    const version = execution.crewVersion;
    if (version !== null && version !== undefined) await this.deps.versions?.load(version);
  }

  /** True when the execution is this crew's, and the caller's token reaches this crew. */
  #holds(execution: Execution, caller: Caller): boolean {
    const { name } = this.deps;
    if (name === undefined) return true;
    return execution.crew === name && reachesCrew(caller.crews, name);
  }

  /**
   * The execution as committed. A remembered copy is used while it is current (finished, or its revision unchanged
   * in the store), so a poll costs one small read; the same object comes back each time, for callers that keep
   * what they derived from it.
   */
  async #read(executionId: string): Promise<Execution | null> {
    const known = this.#recent.get(executionId);
    if (known !== undefined) {
      if (isFinished(known.state)) return known;
      if ((await this.deps.store.getExecutionRevision(executionId)) === known.revision) return known;
    }
    const execution = await this.deps.store.getExecution(executionId);
    if (execution !== null) this.#recent.remember(execution);
    return execution;
  }

  async resume(request: ResumeRequest): Promise<ResumeResult> {
    const execution = await this.get(request.executionId, request.caller);
    const unit = this.deps.versions?.unitOf(execution.crewVersion);
    // The tasks of the version the execution started on, whatever version is served now.
    const crew = this.crewOf(execution);
    if (!crew.tasks.some((task) => task.name === request.taskId)) {
      // The hosted platform answers 404 for a task the crew does not have, and 400 only for a known one.
      throw new CrewdError(
        'NOT_FOUND',
        unit?.kind === 'flow'
          ? `The flow has no method '${request.taskId}'`
          : `The crew has no task '${request.taskId}'`,
      );
    }
    const pending = execution.pending;
    if (execution.state !== 'PAUSED' || pending === null || pending.taskId !== request.taskId) {
      throw notPending();
    }
    const feedback: HumanFeedback = {
      taskId: pending.taskId,
      attempt: pending.attempt,
      text: request.feedback,
      approved: request.approve,
      output: pending.output.output,
      ...(pending.budget === undefined ? {} : { budget: pending.budget.scope }),
    };
    const webhooks: WebhookTargets = {
      taskUrl: request.taskUrl,
      stepUrl: request.stepUrl,
      crewUrl: request.crewUrl,
      humanInput: request.humanInput ?? execution.webhooks.humanInput,
      // Like the task, step and crew URLs: a stream not given again on /resume gets nothing more.
      ...(request.events === null ? {} : { events: request.events }),
      // A2A push configs belong to the task, which goes on across the pause.
      ...a2aPushAfterResume(execution.webhooks, request),
    };
    const answered =
      pending.budget === undefined
        ? await this.#answerReview(execution, pending, feedback, webhooks)
        : await this.#answerBudget(execution, pending, feedback, webhooks);
    if (answered === null) throw notPending();
    return unit?.kind === 'flow' && pending.budget === undefined
      ? flowResumed(pending, feedback.approved)
      : answered;
  }

  /**
   * Answers a review whose deadline has passed with the deadline's outcome, as a `/resume` would, keeping the
   * webhooks of the leg that paused. False when there was nothing to answer: not paused, no deadline, not due yet,
   * or answered first by a person or another process (the guarded change lets exactly one answer win).
   */
  async answerOnDeadline(executionId: string): Promise<boolean> {
    const execution = await this.deps.store.getExecution(executionId);
    const pending = execution?.pending ?? null;
    const deadline = pending?.deadline;
    if (execution?.state !== 'PAUSED' || pending === null || deadline === undefined) return false;
    const now = this.deps.clock();
    if (deadline.at.getTime() > now.getTime()) return false;
    await this.loadCrewOf(execution);
    const feedback: HumanFeedback = {
      taskId: pending.taskId,
      attempt: pending.attempt,
      text: deadline.outcome.approve ? '' : deadline.outcome.feedback,
      approved: deadline.outcome.approve,
      output: pending.output.output,
      givenBy: 'deadline',
    };
    const outbox = this.deps.notifications.humanInputDeadlinePassed(execution, pending.output, feedback);
    return (await this.#answerReview(execution, pending, feedback, execution.webhooks, outbox)) !== null;
  }

  /**
   * Applies an answer to the review `pending`, guarded on it still waiting: null when another answer came first.
   * `outbox` goes with the change (the deadline's notice).
   */
  async #answerReview(
    execution: Execution,
    pending: PendingHumanInput,
    feedback: HumanFeedback,
    webhooks: WebhookTargets,
    outbox: readonly NewOutboxMessage[] = [],
  ): Promise<ResumeResult | null> {
    const now = this.deps.clock();
    const guard = answerGuard(execution, pending, feedback, now);
    // The tasks of the version the execution started on, whatever version is served now. A flow's review is
    // answered by its run (the feedback decides the outcome), so a flow always goes on running.
    const isFlow = this.deps.versions?.unitOf(execution.crewVersion).kind === 'flow';
    if (
      !isFlow &&
      feedback.approved &&
      approvalCompletes(this.crewOf(execution), execution.outputs, pending.taskId)
    ) {
      const ended: Execution = {
        ...execution,
        webhooks,
        state: 'SUCCESS',
        result: pending.output.output,
        resultJson: pending.output.outputJson,
        error: null,
        finishedAt: now,
      };
      const change: ExecutionChange = {
        ...guard,
        state: 'SUCCESS',
        appendOutput: pending.output,
        patch: {
          webhooks,
          result: ended.result,
          resultJson: ended.resultJson,
          currentTask: null,
          finishedAt: now,
        },
        events: [eventRecord.executionResumed(feedback), eventRecord.executionEnded(ended)],
      };
      const { notifications } = this.deps;
      const applied = await this.#apply({
        ...change,
        outbox: [
          ...outbox,
          ...notifications.crewEnded(ended, webhooks),
          ...notifications.streamed(ended, change),
        ],
      });
      if (applied === null) return null;
      return { status: 'completed', message: 'Feedback approved; the execution is complete' };
    }
    const { slot, lease } = this.#leaseIfRoom(now);
    try {
      const applied = await this.#apply({
        ...guard,
        state: 'PENDING',
        ...(feedback.approved && !isFlow ? { appendOutput: pending.output } : {}),
        patch: { webhooks },
        events: [eventRecord.executionResumed(feedback)],
        outbox,
        ...(lease === undefined ? {} : { lease }),
      });
      if (applied === null) return null;
      if (lease !== undefined) slot.submit(execution.id, applied);
      else this.deps.wakeClaims?.();
    } finally {
      slot.release();
    }
    return feedback.approved
      ? { status: 'resumed', message: 'Feedback approved; the execution continues with the next task' }
      : { status: 'retrying', message: `Feedback received; task '${pending.taskId}' will run again` };
  }

  /**
   * Answers a budget pause, guarded on it still waiting: an approval extends the budget by its first amounts (the
   * feedback counts the approvals) and the task goes on from its journal with the call it stopped before; a
   * rejection ends the execution REVOKED with the reason. Null when another answer came first.
   */
  async #answerBudget(
    execution: Execution,
    pending: PendingHumanInput,
    feedback: HumanFeedback,
    webhooks: WebhookTargets,
  ): Promise<ResumeResult | null> {
    const now = this.deps.clock();
    const guard = answerGuard(execution, pending, feedback, now);
    if (!feedback.approved) {
      const reason = feedback.text.trim();
      const error = reason === '' ? 'The budget was not extended' : `The budget was not extended: ${reason}`;
      const ended: Execution = {
        ...execution,
        webhooks,
        state: 'REVOKED',
        result: null,
        error,
        currentTask: null,
        finishedAt: now,
      };
      const change: ExecutionChange = {
        ...guard,
        state: 'REVOKED',
        patch: { webhooks, error, currentTask: null, finishedAt: now },
        events: [eventRecord.executionResumed(feedback), eventRecord.executionEnded(ended)],
      };
      const { notifications } = this.deps;
      const outbox = [...notifications.crewEnded(ended, webhooks), ...notifications.streamed(ended, change)];
      if ((await this.#apply({ ...change, outbox })) === null) return null;
      return { status: 'completed', message: 'Budget not extended; the execution is revoked' };
    }
    const { slot, lease } = this.#leaseIfRoom(now);
    try {
      const applied = await this.#apply({
        ...guard,
        state: 'PENDING',
        patch: { webhooks },
        events: [eventRecord.executionResumed(feedback)],
        ...(lease === undefined ? {} : { lease }),
      });
      if (applied === null) return null;
      if (lease !== undefined) slot.submit(execution.id, applied);
      else this.deps.wakeClaims?.();
    } finally {
      slot.release();
    }
    const part = this.deps.versions?.unitOf(execution.crewVersion).kind === 'flow' ? 'method' : 'task';
    return { status: 'resumed', message: `Budget extended; ${part} '${pending.taskId}' goes on` };
  }

  async cancel(executionId: string, caller: Caller): Promise<Execution> {
    const execution = await this.get(executionId, caller);
    if (isFinished(execution.state)) return execution;
    const now = this.deps.clock();
    const ended: Execution = { ...execution, state: 'REVOKED', currentTask: null, finishedAt: now };
    const unsent: ExecutionChange = {
      executionId,
      fromStates: statesLeadingTo('REVOKED'),
      state: 'REVOKED',
      pending: null,
      patch: { currentTask: null, finishedAt: now },
      events: [eventRecord.executionEnded(ended)],
      now,
    };
    const { notifications } = this.deps;
    const change: ExecutionChange = {
      ...unsent,
      outbox: [...notifications.crewEnded(ended), ...notifications.streamed(ended, unsent)],
    };
    const revoked = await this.deps.store.applyChange(change);
    this.deps.runner.stop(executionId, 'cancelled');
    if (revoked === null) return this.get(executionId, caller);
    this.deps.onCommitted(revoked, change);
    return revoked;
  }

  /** Executions of this crew (of every one without a name), newest first; see `listExecutions`. */
  async list(request: ListRequest): Promise<ExecutionPage> {
    const { name } = this.deps;
    if (name !== undefined && !reachesCrew(request.caller.crews, name))
      return { items: [], nextCursor: null };
    return listExecutions(this.deps.store, request, name === undefined ? undefined : [name]);
  }

  async openEventStream(
    executionId: string,
    caller: Caller,
    afterSequence: number,
    signal: AbortSignal,
  ): Promise<AsyncIterable<StoredExecutionEvent>> {
    // An execution running here is known without a read: the hub holds it while it holds its log.
    const held = this.deps.events.heldExecution(executionId);
    if (held === undefined) await this.get(executionId, caller);
    else await this.#reachable(executionId, held, caller);
    return this.#follow(executionId, afterSequence, signal);
  }

  async *#follow(
    executionId: string,
    afterSequence: number,
    signal: AbortSignal,
  ): AsyncIterable<StoredExecutionEvent> {
    // Subscribed before the first read, so every event committed after that read is published to it.
    const subscription = this.deps.events.subscribe(executionId);
    try {
      let last = afterSequence;
      // Events known to follow `last` without a gap; null means the store must be read. The hub holds the whole
      // log of an execution running here, which has not ended.
      let published: readonly StoredExecutionEvent[] | null = this.deps.events.heldEvents(executionId, last);
      if (published === null && (await this.#endedBefore(executionId, last))) return;
      while (!signal.aborted) {
        const fromStore = published === null;
        const events = published ?? (await this.deps.store.listEvents(executionId, last, eventPageSize));
        for (const event of events) {
          last = event.sequence;
          yield event;
          // Every ending writes an execution-end event with its state change, so the log alone tells when to stop.
          if (event.type === executionEndType) return;
        }
        if (fromStore && events.length === eventPageSize) continue;
        if (fromStore && events.length === 0 && (await this.#isFinished(executionId))) {
          // Finished since the listing above, or resumed past the end: send what is left, then stop.
          for (const event of await this.deps.store.listEvents(executionId, last, eventPageSize)) yield event;
          return;
        }
        const pollMs = this.deps.eventPollMs ?? defaultEventPollMs;
        published = following(await subscription.next(pollMs, signal), last);
      }
    } finally {
      subscription.close();
    }
  }

  async #isFinished(executionId: string): Promise<boolean> {
    // Through the copy the stream's opening read kept: while current, only its revision is read again.
    const execution = await this.#read(executionId);
    return execution === null || isFinished(execution.state);
  }

  /** True when a stream resumes right after the end event: there is nothing more to send. */
  async #endedBefore(executionId: string, last: number): Promise<boolean> {
    if (last === 0) return false;
    const [event] = await this.deps.store.listEvents(executionId, last - 1, 1);
    return event?.type === executionEndType;
  }

  async deliveries(executionId: string, caller: Caller): Promise<readonly DeliveryRecord[]> {
    await this.get(executionId, caller);
    return this.deps.store.listDeliveries(executionId);
  }

  async replaceA2aPush(
    executionId: string,
    caller: Caller,
    update: (current: readonly A2aPushTarget[]) => readonly A2aPushTarget[],
  ): Promise<Execution> {
    // A compare-and-set on the state: a leg that moves the execution meanwhile makes this read and try again.
    for (;;) {
      const execution = await this.get(executionId, caller);
      const webhooks = { ...execution.webhooks, a2aPush: update(execution.webhooks.a2aPush ?? []) };
      const change: ExecutionChange = {
        executionId,
        fromStates: [execution.state],
        patch: { webhooks },
        now: this.deps.clock(),
      };
      const changed = await this.deps.store.applyChange(change);
      if (changed !== null) {
        this.deps.onCommitted(changed, change);
        return changed;
      }
    }
  }

  /** Applies a guarded change; null when its guards no longer held. */
  async #apply(change: ExecutionChange): Promise<Execution | null> {
    const execution = await this.deps.store.applyChange(change);
    if (execution !== null) this.deps.onCommitted(execution, change);
    return execution;
  }
}

/** The events after `last` when they continue it without a gap; null when only the store can tell. */
function following(
  events: readonly StoredExecutionEvent[] | null,
  last: number,
): readonly StoredExecutionEvent[] | null {
  if (events === null) return null;
  const fresh = events.filter((event) => event.sequence > last);
  return fresh.every((event, index) => event.sequence === last + 1 + index) ? fresh : null;
}

/** The A2A push configs of the next leg: those of the task, and those the answering message added. */
function a2aPushAfterResume(
  webhooks: WebhookTargets,
  request: ResumeRequest,
): Pick<WebhookTargets, 'a2aPush'> {
  const kept = webhooks.a2aPush ?? [];
  const added = request.a2aPush ?? [];
  if (kept.length === 0 && added.length === 0) return {};
  const ids = new Set(added.map((target) => target.id));
  return { a2aPush: [...kept.filter((target) => !ids.has(target.id)), ...added] };
}

function visibleTo(execution: Execution, caller: Caller): boolean {
  return caller.kind === 'org' || execution.owner.userId === caller.userId;
}

/**
 * What `/resume` answers for a flow: a rejection of a method without `emit` runs the method again; otherwise its run
 * goes on from the review, the feedback deciding the route.
 */
function flowResumed(pending: PendingHumanInput, approved: boolean): ResumeResult {
  if (!approved && pending.review?.emit === undefined)
    return { status: 'retrying', message: `Feedback received; method '${pending.taskId}' will run again` };
  return {
    status: 'resumed',
    message: `Feedback received; the flow goes on from '${pending.taskId}'`,
  };
}

function notPending(): CrewdError {
  return new CrewdError('NOT_PENDING_HUMAN_INPUT', 'Execution is not in pending human input state');
}

/** The kickoff's budget, else the crew's default; none when neither sets one. */
function budgetOf(request: KickoffRequest, crew: CrewDefinition): { budget?: Budget; dailyBudget?: Budget } {
  const budget = request.budget ?? crew.budget;
  const daily = request.caller.dailyBudget;
  return {
    ...(budget === undefined ? {} : { budget }),
    ...(daily === undefined ? {} : { dailyBudget: daily }),
  };
}

/** The guard of a change answering the review `pending`: it applies only while that very review still waits. */
function answerGuard(execution: Execution, pending: PendingHumanInput, feedback: HumanFeedback, now: Date) {
  return {
    executionId: execution.id,
    fromStates: ['PAUSED'] as const,
    expectPending: { taskId: pending.taskId, attempt: pending.attempt },
    pending: null,
    appendFeedback: feedback,
    now,
  };
}
