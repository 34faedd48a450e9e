import type { CallEstimate } from '../domain/budget.ts';
import type { CrewDefinition } from '../domain/crew.ts';
import { reviewDue, type DueReview } from '../domain/review-deadline.ts';
import { CrewdError } from '../domain/errors.ts';
import type { AgentStep, EngineEvent } from '../domain/events.ts';
import type { Execution } from '../domain/execution.ts';
import type { ExecutionLogEvent, FlowRunTag } from '../domain/execution-log.ts';
import type { TaskOutput } from '../domain/task-output.ts';
import { addUsage, emptyUsage, type TokenUsage } from '../domain/usage.ts';
import type { PlannedModelCall, RunOutcome } from '../engine/run-request.ts';
import { budgetPauseOutput, dailyBudgetReached, executionBudgetReached } from './budget-check.ts';
import type { ExecutionChange, Store } from '../store/store.ts';
import type { StoreUnavailableError } from '../store/store-unavailable.ts';
import { eventRecord } from './event-records.ts';
import { mergeChanges, projectChange } from './merge-changes.ts';
import type { Notifications } from './notifications.ts';
import { retryWhileUnavailable } from './retry-while-unavailable.ts';

export interface RunnerObserver {
  onModelCall?(model: string, seconds: number, usage: TaskOutput['usage']): void;
  onTaskEnd?(seconds: number): void;
  /** Called after every committed change with what the store returned, so watchers and the webhook worker learn of it. */
  onCommitted(execution: Execution, change: ExecutionChange): void;
  onLeaseRenewalFailed?(error: unknown): void;
  /** Called each time a write or read of a running execution meets a store outage; it is retried. */
  onStoreUnavailable?(error: StoreUnavailableError): void;
}

export interface LegDeps {
  /** The crew being run: a pause reads its task's review deadline. */
  readonly crew: CrewDefinition;
  readonly store: Store;
  readonly notifications: Notifications;
  readonly clock: () => Date;
  readonly observer: RunnerObserver;
  /** This process's name on the leases it holds, and how long a lease lasts unless renewed. */
  readonly lease: { readonly owner: string; readonly durationMs: number };
  /**
   * A flow's current task is the method running, which the flow's own writes set: the tasks of the crews its
   * methods run do not replace it.
   */
  readonly unitKind?: 'crew' | 'flow';
}

/** Thrown into the engine when the leg must stop: the execution was changed elsewhere, or the process stops. */
export class LegStopped extends Error {}

/** Thrown into the engine when the leg paused the execution on a budget, before a model call. */
export class BudgetPaused extends LegStopped {}

/**
 * The writes of one leg of one execution, from its start until it pauses, finishes or fails.
 *
 * A task's end (with its final-answer step) is held back and written together with whatever comes next, the next
 * task's start or the execution's end, which follow at once with no model call, tool call or pause in between: a
 * three-task run commits about half as often, and no output is ever held across anything that can fail or wait.
 */
export class ExecutionLeg {
  /** The execution as committed plus what is held back. */
  #execution: Execution;
  /** The execution as committed: what the store writes the next change on top of. */
  #committed: Execution;
  #held: ExecutionChange | undefined;
  #taskStartedAt: number | undefined;
  #holdsLease = false;
  /** Usage of the model calls since the last task's end: counted with the next one, or with a failure. */
  #unsettledUsage: TokenUsage = emptyUsage;

  /**
   * @param signal aborts the wait for a store that is down (a cancel, a takeover, the process stopping); a leg
   * otherwise waits out an outage of any length, holding its progress, and goes on when the store is back.
   */
  constructor(
    execution: Execution,
    private readonly deps: LegDeps,
    private readonly signal?: AbortSignal,
  ) {
    this.#execution = execution;
    this.#committed = execution;
    // A RUNNING execution is continued under the lease its claim took, renewed from the start.
    this.#holdsLease = execution.state === 'RUNNING';
  }

  /** The execution as committed, with what is held back applied. */
  get execution(): Execution {
    return this.#execution;
  }

  /** The notifications of the unit the leg runs. */
  get notifications(): Notifications {
    return this.deps.notifications;
  }

  /** True between the leg's first write and the one that pauses or ends the execution. */
  get holdsLease(): boolean {
    return this.#holdsLease;
  }

  /**
   * Holds the move from PENDING to RUNNING, so it is written with the first task's start (or the end, if the run
   * fails before any task starts). That write is the claim: if the execution is no longer PENDING, the leg stops.
   */
  claim(): void {
    const now = this.deps.clock();
    this.#hold({
      executionId: this.#execution.id,
      fromStates: ['PENDING'],
      state: 'RUNNING',
      // The first leg's start: a leg after a resume or a restart goes on with the same execution time.
      patch: this.#execution.startedAt === null ? { startedAt: now } : {},
      events: [eventRecord.executionStarted()],
      now,
    });
  }

  /** Writes an engine event; `run` marks the inner events of a flow's crew or agent run with that run. */
  async record(event: EngineEvent, stopping: boolean, run?: FlowRunTag): Promise<void> {
    const now = this.deps.clock();
    const marked = (record: ExecutionLogEvent) => eventRecord.inFlowRun(record, run);
    switch (event.type) {
      case 'task-start':
        if (stopping) {
          await this.#write(undefined);
          throw new LegStopped();
        }
        this.#taskStartedAt = performance.now();
        await this.#write({
          patch: this.deps.unitKind === 'flow' ? {} : { currentTask: event.taskId },
          events: [marked(eventRecord.taskStarted(event))],
          ...this.#guard(now),
        });
        return;
      case 'step-end':
        // A final answer travels with its task's end; a tool call is written before the next model call.
        if (event.step.tool === null) this.#hold(this.#stepChange(event.step, now, run));
        else await this.#write(this.#stepChange(event.step, now, run));
        return;
      case 'model-call-end': {
        this.#unsettledUsage = addUsage(this.#unsettledUsage, event.usage);
        this.deps.observer.onModelCall?.(event.model, event.durationMs / 1000, event.usage);
        // An answer that calls tools is saved before they run, so a crash never pays for it twice; a final answer
        // travels with its task's end.
        const change = { events: [marked(eventRecord.modelCallEnded(event))], ...this.#guard(now) };
        if (event.answer.toolCalls.length > 0) await this.#write(change);
        else this.#hold(change);
        return;
      }
      case 'guardrail-start':
        this.#hold({ events: [marked(eventRecord.guardrailStarted(event))], ...this.#guard(now) });
        return;
      case 'guardrail-end':
        // Written before the agent goes on, with the check's model answer: a restart does not report it again.
        await this.#write({ events: [marked(eventRecord.guardrailEnded(event))], ...this.#guard(now) });
        return;
      case 'task-end':
        if (this.#taskStartedAt !== undefined) {
          this.deps.observer.onTaskEnd?.((performance.now() - this.#taskStartedAt) / 1000);
        }
        // The task's output carries the usage of its own calls.
        this.#unsettledUsage = emptyUsage;
        await this.#taskEnded(event.output, event.awaitingHumanInput, now, run);
        return;
    }
  }

  /**
   * Checked before every model call: one that could pass the execution's budget is not made. The execution pauses
   * for approval instead, between two steps of its task (a tool call in flight was recorded when it completed),
   * and the engine is stopped with `BudgetPaused`; an approval runs the task on from its journal.
   */
  async beforeModelCall(planned: PlannedModelCall): Promise<void> {
    // Worked out once, and only for an execution with a budget: it reads the whole conversation.
    let estimate: CallEstimate | undefined;
    const call = { ...planned, estimate: () => (estimate ??= planned.estimate()) };
    const now = this.deps.clock();
    const reached =
      executionBudgetReached(this.#execution, call) ??
      (await dailyBudgetReached(this.#execution, call, now, this.deps.store));
    if (reached === undefined) return;
    // A leg's claim is held for its first write; a flow may reach a model call before any (the call classifying
    // a review's feedback): the claim is written first, as a pause is made only from RUNNING.
    if (this.#committed.state === 'PENDING') await this.#write(undefined);
    const execution = this.#execution;
    const output = budgetPauseOutput(call, reached);
    await this.#write({
      state: 'PAUSED',
      pending: { taskId: call.taskId, attempt: call.attempt, output, budget: reached },
      // A flow's pause names the method, which is the one a resume goes on with.
      patch: this.deps.unitKind === 'flow' ? { currentTask: call.taskId } : {},
      events: [eventRecord.budgetReached(output, reached)],
      outbox: this.deps.notifications.budgetReached(execution, output, reached),
      ...this.#guard(now),
    });
    throw new BudgetPaused('The execution paused on its budget');
  }

  async finish(outcome: RunOutcome): Promise<void> {
    if (outcome.kind === 'paused') return; // written with the task's end
    const last = outcome.outputs.at(-1);
    await this.#end({
      state: 'SUCCESS',
      result: last?.output ?? '',
      resultJson: last?.outputJson ?? null,
      error: null,
    });
  }

  /**
   * Writes a change of a flow's progress (a method's start, its journal entry, a pause) under this leg's lease,
   * together with what is held back. `build` gets the guard every write of a running leg carries.
   */
  async write(build: (guard: ReturnType<ExecutionLeg['guardAt']>) => ExecutionChange): Promise<void> {
    await this.#write(build(this.guardAt(this.deps.clock())));
  }

  /** The guard of a write while the execution runs: it applies only while the execution is RUNNING. */
  guardAt(now: Date) {
    return this.#guard(now);
  }

  /** Ends the execution successfully with this result (a flow's final output). */
  async succeed(result: string, resultJson: Record<string, unknown> | null): Promise<void> {
    await this.#end({ state: 'SUCCESS', result, resultJson, error: null });
  }

  /** The deadline of a review of `taskId` starting now, when there is one. */
  reviewDeadline(taskId: string, now: Date): { deadline?: DueReview } {
    return this.#deadline(taskId, now);
  }

  async fail(error: unknown): Promise<void> {
    const message =
      error instanceof CrewdError ? error.message : 'The execution failed because of an internal error';
    await this.#end({ state: 'FAILED', result: null, resultJson: null, error: message }).catch((reason) => {
      if (!(reason instanceof LegStopped)) throw reason;
    });
  }

  /**
   * Spread last in the change it guards, as in every literal on a run's path that adds fields to a spread: on Node 20,
   * fields added after a leading spread take V8's slow path (about 3.6 µs a change here, against 0.16 µs).
   */
  #guard(now: Date) {
    return { executionId: this.#execution.id, fromStates: ['RUNNING'] as const, now };
  }

  #stepChange(step: AgentStep, now: Date, run: FlowRunTag | undefined): ExecutionChange {
    const execution = this.#execution;
    return {
      patch: { lastStep: step },
      events: [eventRecord.inFlowRun(eventRecord.stepEnded(execution.id, step, execution.meta), run)],
      outbox: this.deps.notifications.stepEnded(execution, step),
      ...this.#guard(now),
    };
  }

  async #taskEnded(
    output: TaskOutput,
    awaiting: boolean,
    now: Date,
    run: FlowRunTag | undefined,
  ): Promise<void> {
    const execution = this.#execution;
    const { notifications } = this.deps;
    const ended: ExecutionChange = {
      patch: { usage: addUsage(execution.usage, output.usage) },
      events: [eventRecord.inFlowRun(eventRecord.taskEnded(execution.id, output, execution.meta), run)],
      outbox: notifications.taskEnded(execution, output, output.taskId),
      ...this.#guard(now),
    };
    if (!awaiting) {
      this.#hold({ appendOutput: output, ...ended });
      return;
    }
    await this.#write(
      mergeChanges(ended, {
        state: 'PAUSED',
        pending: {
          taskId: output.taskId,
          attempt: output.attempt,
          output,
          ...this.#deadline(output.taskId, now),
        },
        events: [eventRecord.humanInputRequested(output)],
        outbox: notifications.humanInputRequested(execution, output),
        ...this.#guard(now),
      }),
    );
  }

  /** The deadline of a review starting now: the kickoff's, else the task's, when there is one. */
  #deadline(taskId: string, now: Date): { deadline?: DueReview } {
    const deadline =
      this.#execution.reviewDeadline ??
      this.deps.crew.tasks.find((task) => task.name === taskId)?.reviewDeadline;
    return deadline === undefined ? {} : { deadline: reviewDue(deadline, now) };
  }

  async #end(ending: Pick<Execution, 'state' | 'result' | 'resultJson' | 'error'>): Promise<void> {
    const now = this.deps.clock();
    // A failed task's calls were made and paid for: they count although the task has no output.
    const usage = addUsage(this.#execution.usage, this.#unsettledUsage);
    this.#unsettledUsage = emptyUsage;
    const ended: Execution = {
      ...this.#execution,
      ...ending,
      usage,
      currentTask: null,
      finishedAt: now,
      updatedAt: now,
    };
    await this.#write({
      state: ending.state,
      patch: {
        usage,
        result: ending.result,
        resultJson: ending.resultJson,
        error: ending.error,
        currentTask: null,
        finishedAt: now,
      },
      events: [eventRecord.executionEnded(ended)],
      outbox: this.deps.notifications.crewEnded(ended),
      ...this.#guard(now),
    });
  }

  #hold(change: ExecutionChange): void {
    this.#held = this.#held === undefined ? change : mergeChanges(this.#held, change);
    this.#execution = projectChange(this.#execution, change);
  }

  /**
   * Writes what is held together with `change`, under this process's lease: taken by the leg's first write, renewed
   * by every write while the execution runs, and released by the write that pauses or ends it. If another writer
   * got there first (a cancel, or another process that holds the lease), the leg stops.
   */
  async #write(change: ExecutionChange | undefined): Promise<void> {
    const held = this.#held;
    this.#held = undefined;
    const merged = held === undefined ? change : change === undefined ? held : mergeChanges(held, change);
    if (merged === undefined) return;
    const { owner, durationMs } = this.deps.lease;
    const releases = merged.state !== undefined && merged.state !== 'RUNNING';
    const streamed = this.deps.notifications.streamed(this.#execution, merged);
    const combined: ExecutionChange = {
      ...merged,
      outbox: streamed.length === 0 ? merged.outbox : [...(merged.outbox ?? []), ...streamed],
      lease: { owner, until: releases ? null : new Date(merged.now.getTime() + durationMs) },
    };
    const execution = await this.#commit(combined);
    if (execution === null) throw new LegStopped();
    this.#holdsLease = !releases;
    this.#execution = execution;
    this.#committed = execution;
    this.deps.observer.onCommitted(execution, combined);
  }

  /**
   * Applies the change, waiting out a store outage: an execution never fails because its database was down. A write
   * cut off by the outage may have committed before its answer was lost, so before trying again the execution is
   * read: still at the revision this leg knows, the write did not happen; one revision on with exactly this
   * change's events and state, it did; anything else was written elsewhere (a cancel, a takeover), and the leg stops.
   */
  async #commit(change: ExecutionChange): Promise<Execution | null> {
    const { store, observer } = this.deps;
    const known = this.#committed;
    const options = {
      ...(this.signal === undefined ? {} : { signal: this.signal }),
      onUnavailable: (error: StoreUnavailableError) => observer.onStoreUnavailable?.(error),
    };
    let interrupted = false;
    return retryWhileUnavailable(async () => {
      if (interrupted) {
        const current = await store.getExecution(known.id);
        if (current === null) return null;
        if (current.revision !== known.revision) return isOutcomeOf(change, known, current) ? current : null;
      }
      interrupted = true;
      const applied = await store.applyChange(change, known);
      interrupted = false;
      return applied;
    }, options);
  }
}

/** True when `current` is `known` with exactly `change` applied once. */
function isOutcomeOf(change: ExecutionChange, known: Execution, current: Execution): boolean {
  return (
    current.revision === known.revision + 1 &&
    current.lastEventSequence === known.lastEventSequence + (change.events?.length ?? 0) &&
    current.state === (change.state ?? known.state)
  );
}
