import type { Execution } from '../domain/execution.ts';
import { createRateLimiter, prefixedLimiter, type RateLimiter } from '../engine/rate-limiter.ts';
import { runCrew } from '../engine/crew-process.ts';
import type { OutputFiles } from '../engine/output-files.ts';
import type { StepJournal } from '../engine/step-journal.ts';
import type { Timers } from '../engine/timers.ts';
import { ToolCaches } from '../engine/tool-cache.ts';
import { taskFeedback } from '../domain/task-output.ts';
import type { PriceTable } from '../llm/price-table.ts';
import type { ExecutionNotice } from '../store/coordination-feed.ts';
import { isStoreUnavailable, type StoreUnavailableError } from '../store/store-unavailable.ts';
import { ExecutionTrace } from '../observability/execution-trace.ts';
import type { Tracing } from '../observability/tracing.ts';
import { readFlowCheckpoint, resumedFromReview, type FlowCheckpoint } from './read-flow-checkpoint.ts';
import { readRestoredState } from './read-restored-state.ts';
import { readStepJournal, resumedFromBudgetPause } from './read-step-journal.ts';
import type { RunnableCrew, RunnableFlow, RunnableUnit } from './runnable-unit.ts';
import { BudgetPaused, ExecutionLeg, LegStopped, type LegDeps } from './execution-leg.ts';
import { retryWhileUnavailable } from './retry-while-unavailable.ts';

export type { RunnerObserver } from './execution-leg.ts';

export type { RunnableCrew, RunnableFlow, RunnableUnit } from './runnable-unit.ts';

/** Finds the crew or flow (the version of it) an execution runs on; undefined when this process does not serve it. */
export type RunnableUnitOf = (execution: Execution) => Promise<RunnableUnit | undefined>;

export interface ExecutionRunnerDeps extends Omit<LegDeps, 'notifications' | 'crew' | 'unitKind'> {
  readonly unitOf: RunnableUnitOf;
  /** The max_rpm limiter every leg shares; a real-time one unless given (tests pass one on their own clock). */
  readonly limiter?: RateLimiter;
  /** Records a trace of every leg when tracing is on. */
  readonly tracing?: Tracing;
  /** Where tasks' `output_file`s are saved. */
  readonly outputFiles?: OutputFiles;
  /** Times agents' `max_execution_time`; real timers unless given. */
  readonly timers?: Timers;
  /** Prices every model call into the usage; without it, usage carries no cost and only token budgets apply. */
  readonly prices?: PriceTable;
}

/** Why a running execution was stopped from outside; `elsewhere`: another process cancelled it or took it over. */
export type StopReason = 'cancelled' | 'shutdown' | 'elsewhere';

/** An execution running here: its abort switch, and its leg once the execution has been read. */
interface Run {
  readonly controller: AbortController;
  leg?: ExecutionLeg;
}

/**
 * Runs legs of executions in this process: each from PENDING (or RUNNING, when its last process stopped) until it
 * pauses or ends. While legs run, their leases are renewed a few times per lease period, so no other process takes
 * over an execution that is still making progress here.
 */
export class ExecutionRunner {
  readonly #runs = new Map<string, Run>();
  /** Shared by every leg in this process, so an agent's max_rpm spacing holds across a resume. */
  readonly #limiter: RateLimiter;
  readonly #toolCaches = new ToolCaches();
  #shuttingDown = false;
  #renewal: NodeJS.Timeout | undefined;

  constructor(private readonly deps: ExecutionRunnerDeps) {
    this.#limiter = deps.limiter ?? createRateLimiter();
  }

  /** Aborts the model call in flight for this execution, if it runs in this process. */
  stop(executionId: string, reason: StopReason): void {
    this.#runs.get(executionId)?.controller.abort(reason);
  }

  /** Executions running in this process. */
  get running(): number {
    return this.#runs.size;
  }

  /**
   * Another process changed an execution: if it runs here and was cancelled, finished or taken over there, its
   * model call in flight is aborted at once. Notices older than what this leg read are ignored.
   */
  noticed(notice: ExecutionNotice): void {
    const leg = this.#runs.get(notice.executionId)?.leg;
    if (leg === undefined || notice.revision <= leg.execution.revision) return;
    const taken = notice.leaseOwner !== null && notice.leaseOwner !== this.deps.lease.owner;
    if (taken || (notice.state !== 'RUNNING' && notice.state !== 'PENDING')) {
      this.stop(notice.executionId, 'elsewhere');
    }
  }

  /** Lets running tasks finish but starts no new task; those executions stay RUNNING for the next process. */
  beginShutdown(): void {
    this.#shuttingDown = true;
  }

  /** Aborts every run in this process (shutdown: the executions stay RUNNING for the next process). */
  stopAll(reason: StopReason): void {
    for (const run of this.#runs.values()) run.controller.abort(reason);
  }

  /** Frees the leases of executions this process leaves unfinished, so the next process goes on at once. */
  releaseLeases(): Promise<void> {
    return this.deps.store.releaseLeases(this.deps.lease.owner);
  }

  /**
   * Runs the execution to its pause or its end. `committed`, the execution as its kickoff or resume just committed
   * it, spares reading it back; the leg's first write is guarded by its state and lease all the same.
   */
  async run(executionId: string, committed?: Execution): Promise<void> {
    if (this.#shuttingDown) return;
    const controller = new AbortController();
    const run: Run = { controller };
    this.#runs.set(executionId, run);
    this.#renewal ??= setInterval(() => this.#renewLeases(), this.deps.lease.durationMs / 3).unref();
    try {
      const start = await this.#leg(executionId, controller.signal, committed);
      if (start === null) return;
      const { leg, journal, runnable, flowCheckpoint } = start;
      run.leg = leg;
      const { tracing } = this.deps;
      const traced =
        tracing === undefined
          ? undefined
          : new ExecutionTrace(tracing, { id: executionId, crew: runnable.crew.name });
      try {
        const outcome =
          runnable.kind === 'crew'
            ? await this.#runCrew(leg, runnable, journal, controller.signal, traced)
            : await this.#runFlow(leg, runnable, flowCheckpoint, controller.signal, traced);
        traced?.end(outcome === 'paused' ? 'PAUSED' : 'SUCCESS');
        if (outcome === 'completed') this.#toolCaches.drop(executionId);
      } catch (error) {
        if (error instanceof BudgetPaused) {
          traced?.end('PAUSED');
          return;
        }
        // A shutdown leaves the execution RUNNING for recovery; a cancel was already recorded by cancel().
        if (error instanceof LegStopped || controller.signal.aborted) {
          traced?.end('stopped');
          return;
        }
        // A store outage is never the execution's failure: it stays RUNNING, and a claim continues it once the
        // lease runs out.
        if (isStoreUnavailable(error)) {
          traced?.end('stopped');
          return;
        }
        this.#toolCaches.drop(executionId);
        await leg.fail(error);
        traced?.end('FAILED', leg.execution.error ?? 'The execution failed');
      }
    } finally {
      this.#runs.delete(executionId);
      if (this.#runs.size === 0) {
        clearInterval(this.#renewal);
        this.#renewal = undefined;
      }
    }
  }

  /** Runs a crew's leg to its pause or its end, and writes how it ended. */
  async #runCrew(
    leg: ExecutionLeg,
    runnable: RunnableCrew,
    journal: StepJournal | undefined,
    signal: AbortSignal,
    traced: ExecutionTrace | undefined,
  ): Promise<'paused' | 'completed'> {
    const execution = leg.execution;
    const executionId = execution.id;
    const outcome = await runCrew({
      executionId,
      crew: runnable.crew,
      inputs: execution.inputs,
      checkpoint: {
        outputs: execution.outputs,
        feedback: taskFeedback(execution.feedback),
        ...(journal === undefined ? {} : { journal }),
      },
      models: runnable.models,
      tools: runnable.tools,
      defaultModel: runnable.defaultModel,
      signal,
      onEvent: (event) => {
        traced?.record(event);
        return leg.record(event, this.#shuttingDown);
      },
      beforeModelCall: (call) => leg.beforeModelCall(call),
      prices: this.deps.prices,
      limiter: prefixedLimiter(this.#limiter, `${executionId}\n`),
      toolCache: this.#toolCaches.for(executionId),
      outputFiles: this.deps.outputFiles,
      clock: this.deps.clock,
      timers: this.deps.timers,
    });
    await leg.finish(outcome);
    return outcome.kind;
  }

  /** Runs a flow's leg (see runFlowLeg): the events of the crews inside it are written as a crew's are. */
  async #runFlow(
    leg: ExecutionLeg,
    runnable: RunnableFlow,
    checkpoint: FlowCheckpoint | undefined,
    signal: AbortSignal,
    traced: ExecutionTrace | undefined,
  ): Promise<'paused' | 'completed'> {
    const { store, observer } = this.deps;
    const restoredState = await retryWhileUnavailable(() => readRestoredState(store, leg.execution), {
      signal,
      onUnavailable: (error: StoreUnavailableError) => observer.onStoreUnavailable?.(error),
    });
    // Flows' engine (CEL with it) loads with the first flow execution, not with every server.
    const { runFlowLeg } = await import('./flow-leg.ts');
    const outcome = await runFlowLeg({
      leg,
      unit: runnable,
      ...(restoredState === undefined ? {} : { restoredState }),
      ...(checkpoint === undefined ? {} : { checkpoint }),
      ...(this.deps.prices === undefined ? {} : { prices: this.deps.prices }),
      signal,
      clock: this.deps.clock,
      onEngineEvent: (event, run) => {
        traced?.record(event);
        return leg.record(event, this.#shuttingDown, run);
      },
      onMethodEvent: (event) => traced?.method(event),
    });
    return outcome.status;
  }

  /**
   * Renews the leases of the legs that hold one. A leg whose lease was not renewed has lost its execution to a
   * cancel or to another process: its model call in flight is aborted, as a cancel in this process would.
   */
  #renewLeases(): void {
    const { owner, durationMs } = this.deps.lease;
    const until = new Date(this.deps.clock().getTime() + durationMs);
    const holds = (id: string): boolean => this.#runs.get(id)?.leg?.holdsLease === true;
    const held = [...this.#runs.keys()].filter(holds);
    if (held.length === 0) return;
    this.deps.store.renewLeases(owner, held, until).then(
      (renewed) => {
        const kept = new Set(renewed);
        const lost = held.filter((id) => !kept.has(id) && holds(id));
        for (const id of lost) this.stop(id, 'elsewhere');
      },
      // Only reported: the next write of each leg still checks the lease.
      (error: unknown) => this.deps.observer.onLeaseRenewalFailed?.(error),
    );
  }

  /**
   * The leg to run: a PENDING execution is claimed by the leg's first write, together with its first task's start;
   * a RUNNING one was running when the process last stopped and continues.
   */
  async #leg(
    executionId: string,
    signal: AbortSignal,
    committed: Execution | undefined,
  ): Promise<{
    leg: ExecutionLeg;
    journal?: StepJournal;
    flowCheckpoint?: FlowCheckpoint;
    runnable: RunnableUnit;
  } | null> {
    const { store, observer } = this.deps;
    const whileDown = {
      signal,
      onUnavailable: (error: StoreUnavailableError) => observer.onStoreUnavailable?.(error),
    };
    const execution =
      committed ?? (await retryWhileUnavailable(() => store.getExecution(executionId), whileDown));
    if (execution === null) return null;
    if (execution.state !== 'PENDING' && execution.state !== 'RUNNING') return null;
    // A crew this process does not serve is left for a process that does, once the lease runs out.
    const runnable = await this.deps.unitOf(execution);
    if (runnable === undefined) return null;
    const leg = new ExecutionLeg(
      execution,
      {
        ...this.deps,
        crew: runnable.crew,
        notifications: runnable.notifications,
        unitKind: runnable.kind,
      },
      signal,
    );
    const goesOn =
      execution.state === 'RUNNING' ||
      resumedFromBudgetPause(execution) ||
      (runnable.kind === 'flow' && resumedFromReview(execution));
    if (execution.state === 'PENDING') leg.claim();
    if (!goesOn) return { leg, runnable };
    // A flow continues from the journal in its record (and its methods in flight, those a review's pause stopped
    // too, from their crews' last completed steps); a crew's task in flight from its last completed step.
    if (runnable.kind === 'flow') {
      const cut = await retryWhileUnavailable(() => readFlowCheckpoint(store, execution), whileDown);
      return cut === undefined ? { leg, runnable } : { leg, runnable, flowCheckpoint: cut };
    }
    // Continuing after a crash or a handover: the task in flight goes on from its last completed step.
    const journal = await retryWhileUnavailable(() => readStepJournal(store, execution), whileDown);
    return journal === undefined ? { leg, runnable } : { leg, journal, runnable };
  }
}
