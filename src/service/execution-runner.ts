import type { CrewDefinition } from '../domain/crew.ts';
import type { Execution } from '../domain/execution.ts';
import { runCrew } from '../engine/run-crew.ts';
import type { ToolRegistry } from '../engine/tool.ts';
import type { ModelResolver } from '../llm/chat-model.ts';
import { eventRecord } from './event-records.ts';
import { ExecutionLeg, LegStopped, type LegDeps } from './execution-leg.ts';

export type { RunnerObserver } from './execution-leg.ts';

export interface ExecutionRunnerDeps extends LegDeps {
  readonly crew: CrewDefinition;
  readonly models: ModelResolver;
  readonly tools: ToolRegistry;
  readonly defaultModel: string | undefined;
}

/** Why a running execution was stopped from outside. */
export type StopReason = 'cancelled' | 'shutdown';

/** Runs legs of executions in this process: each from PENDING (or RUNNING after a restart) until it pauses or ends. */
export class ExecutionRunner {
  readonly #controllers = new Map<string, AbortController>();
  #shuttingDown = false;

  constructor(private readonly deps: ExecutionRunnerDeps) {}

  /** Aborts the model call in flight for this execution, if it runs in this process. */
  stop(executionId: string, reason: StopReason): void {
    this.#controllers.get(executionId)?.abort(reason);
  }

  /** Lets running tasks finish but starts no new task; those executions stay RUNNING and recover on restart. */
  beginShutdown(): void {
    this.#shuttingDown = true;
  }

  /** Aborts every run in this process (shutdown: the executions stay RUNNING and recover on the next start). */
  stopAll(reason: StopReason): void {
    for (const controller of this.#controllers.values()) controller.abort(reason);
  }

  async run(executionId: string): Promise<void> {
    if (this.#shuttingDown) return;
    const controller = new AbortController();
    this.#controllers.set(executionId, controller);
    try {
      const execution = await this.#start(executionId);
      if (execution === null) return;
      const leg = new ExecutionLeg(execution, this.deps);
      try {
        const outcome = await runCrew({
          crew: this.deps.crew,
          inputs: execution.inputs,
          checkpoint: { outputs: execution.outputs, feedback: execution.feedback },
          models: this.deps.models,
          tools: this.deps.tools,
          defaultModel: this.deps.defaultModel,
          signal: controller.signal,
          onEvent: (event) => leg.record(event, this.#shuttingDown),
        });
        await leg.finish(outcome);
      } catch (error) {
        if (error instanceof LegStopped) return;
        // A shutdown leaves the execution RUNNING for recovery; a cancel was already recorded by cancel().
        if (controller.signal.aborted) return;
        await leg.fail(error);
      }
    } finally {
      this.#controllers.delete(executionId);
    }
  }

  async #start(executionId: string): Promise<Execution | null> {
    const now = this.deps.clock();
    const start = {
      executionId,
      fromStates: ['PENDING'] as const,
      state: 'RUNNING' as const,
      patch: { startedAt: now },
      events: [eventRecord.executionStarted()],
      now,
    };
    const started = await this.deps.store.applyChange(start);
    if (started !== null) {
      this.deps.observer.onCommitted(started, start);
      return started;
    }
    // Recovery after a restart: the execution was RUNNING when the process stopped.
    const current = await this.deps.store.getExecution(executionId);
    return current?.state === 'RUNNING' ? current : null;
  }
}
