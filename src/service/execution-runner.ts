import type { CrewDefinition } from '../domain/crew.ts';
import { CrewdError } from '../domain/errors.ts';
import type { AgentStep, EngineEvent } from '../domain/events.ts';
import type { Execution } from '../domain/execution.ts';
import type { TaskOutput } from '../domain/task-output.ts';
import { addUsage } from '../domain/usage.ts';
import { runCrew } from '../engine/run-crew.ts';
import type { RunOutcome } from '../engine/run-crew-types.ts';
import type { ToolRegistry } from '../engine/tool.ts';
import type { ModelResolver } from '../llm/chat-model.ts';
import type { ExecutionChange, Store } from '../store/store.ts';
import { eventRecord } from './event-records.ts';
import type { Notifications } from './notifications.ts';

export interface RunnerObserver {
  onModelCall?(model: string, seconds: number, usage: TaskOutput['usage']): void;
  onTaskEnd?(seconds: number): void;
  /** Called after every committed change, so watchers and the webhook worker wake up. */
  onCommitted(execution: Execution, queuedWebhooks: boolean): void;
}

export interface ExecutionRunnerDeps {
  readonly crew: CrewDefinition;
  readonly store: Store;
  readonly models: ModelResolver;
  readonly tools: ToolRegistry;
  readonly defaultModel: string | undefined;
  readonly notifications: Notifications;
  readonly clock: () => Date;
  readonly observer: RunnerObserver;
}

/** Thrown into the engine when the run must stop: the execution was changed elsewhere, or the process stops. */
class ExecutionSuperseded extends Error {}

/** Why a running execution was stopped from outside. */
export type StopReason = 'cancelled' | 'shutdown';

/**
 * Runs one leg of one execution: from PENDING (or RUNNING after a restart) until it pauses, finishes or fails,
 * writing every task end and its webhooks in one change.
 */
export class ExecutionRunner {
  readonly #controllers = new Map<string, AbortController>();
  /** The latest committed version of each execution running here, so events need no extra reads. */
  readonly #latest = new Map<string, Execution>();
  readonly #taskStartedAt = new Map<string, number>();
  /** A final-answer step waiting to be written together with its task's end: one commit instead of two. */
  readonly #finalSteps = new Map<string, AgentStep>();
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
      const outcome = await runCrew({
        crew: this.deps.crew,
        inputs: execution.inputs,
        checkpoint: { outputs: execution.outputs, feedback: execution.feedback },
        models: this.deps.models,
        tools: this.deps.tools,
        defaultModel: this.deps.defaultModel,
        signal: controller.signal,
        onEvent: (event) => this.#record(executionId, event),
      });
      await this.#finish(executionId, outcome);
    } catch (error) {
      if (error instanceof ExecutionSuperseded) return;
      // A shutdown leaves the execution RUNNING for recovery; a cancel was already recorded by cancel().
      if (controller.signal.aborted) return;
      await this.#fail(executionId, error);
    } finally {
      this.#controllers.delete(executionId);
      this.#latest.delete(executionId);
      this.#taskStartedAt.delete(executionId);
      this.#finalSteps.delete(executionId);
    }
  }

  async #start(executionId: string): Promise<Execution | null> {
    const now = this.deps.clock();
    const started = await this.#apply({
      executionId,
      fromStates: ['PENDING'],
      state: 'RUNNING',
      patch: { startedAt: now },
      events: [eventRecord.executionStarted()],
      now,
    });
    if (started !== null) return started;
    // Recovery after a restart: the execution was RUNNING when the process stopped.
    const current = await this.deps.store.getExecution(executionId);
    if (current?.state !== 'RUNNING') return null;
    this.#latest.set(executionId, current);
    return current;
  }

  async #record(executionId: string, event: EngineEvent): Promise<void> {
    const now = this.deps.clock();
    const held = this.#finalSteps.get(executionId);
    if (held !== undefined && event.type !== 'task-end') {
      this.#finalSteps.delete(executionId);
      await this.#must(this.#stepChange(await this.#current(executionId), held, now));
    }
    const execution = await this.#current(executionId);
    switch (event.type) {
      case 'task-start':
        if (this.#shuttingDown) throw new ExecutionSuperseded();
        this.#taskStartedAt.set(executionId, performance.now());
        await this.#must({
          executionId,
          fromStates: ['RUNNING'],
          patch: { currentTask: event.taskId },
          events: [eventRecord.taskStarted(event)],
          now,
        });
        return;
      case 'step-end':
        if (event.step.tool === null) this.#finalSteps.set(executionId, event.step);
        else await this.#must(this.#stepChange(execution, event.step, now));
        return;
      case 'model-call-end':
        this.deps.observer.onModelCall?.(event.model, event.durationMs / 1000, event.usage);
        return;
      case 'task-end': {
        const startedAt = this.#taskStartedAt.get(executionId);
        if (startedAt !== undefined) this.deps.observer.onTaskEnd?.((performance.now() - startedAt) / 1000);
        await this.#taskEnded(execution, event.output, event.awaitingHumanInput, now);
        return;
      }
    }
  }

  #stepChange(execution: Execution, step: AgentStep, now: Date): ExecutionChange {
    return {
      executionId: execution.id,
      fromStates: ['RUNNING'],
      patch: { lastStep: step },
      events: [eventRecord.stepEnded(execution.id, step, execution.meta)],
      outbox: this.deps.notifications.stepEnded(execution, step),
      now,
    };
  }

  /** Writes the task's output (with its final-answer step) and, for a human-input task, the pause. */
  async #taskEnded(execution: Execution, output: TaskOutput, awaiting: boolean, now: Date): Promise<void> {
    const { notifications } = this.deps;
    const finalStep = this.#finalSteps.get(execution.id);
    this.#finalSteps.delete(execution.id);
    const step = finalStep === undefined ? undefined : this.#stepChange(execution, finalStep, now);
    const usage = addUsage(execution.usage, output.usage);
    const common = {
      executionId: execution.id,
      fromStates: ['RUNNING'] as const,
      patch: { usage, ...(finalStep === undefined ? {} : { lastStep: finalStep }) },
      now,
    };
    const events = [...(step?.events ?? []), eventRecord.taskEnded(execution.id, output, execution.meta)];
    const outbox = [...(step?.outbox ?? []), ...notifications.taskEnded(execution, output, output.taskId)];
    if (!awaiting) {
      await this.#must({ ...common, appendOutput: output, events, outbox });
      return;
    }
    await this.#must({
      ...common,
      state: 'PAUSED',
      pending: { taskId: output.taskId, attempt: output.attempt, output },
      events: [...events, eventRecord.humanInputRequested(output)],
      outbox: [...outbox, ...notifications.humanInputRequested(execution, output)],
    });
  }

  async #finish(executionId: string, outcome: RunOutcome): Promise<void> {
    if (outcome.kind === 'paused') return; // recorded with the task's end
    const execution = await this.#current(executionId);
    const last = outcome.outputs.at(-1);
    await this.#end(execution, {
      state: 'SUCCESS',
      result: last?.output ?? '',
      resultJson: last?.outputJson ?? null,
      error: null,
    });
  }

  async #fail(executionId: string, error: unknown): Promise<void> {
    const execution = await this.deps.store.getExecution(executionId);
    if (execution === null || execution.state !== 'RUNNING') return;
    const message =
      error instanceof CrewdError ? error.message : 'The execution failed because of an internal error';
    await this.#end(execution, { state: 'FAILED', result: null, resultJson: null, error: message });
  }

  async #end(
    execution: Execution,
    ending: Pick<Execution, 'state' | 'result' | 'resultJson' | 'error'>,
  ): Promise<void> {
    const now = this.deps.clock();
    const ended: Execution = { ...execution, ...ending, currentTask: null, finishedAt: now, updatedAt: now };
    await this.#apply({
      executionId: execution.id,
      fromStates: ['RUNNING'],
      state: ending.state,
      patch: {
        result: ending.result,
        resultJson: ending.resultJson,
        error: ending.error,
        currentTask: null,
        finishedAt: now,
      },
      events: [eventRecord.executionEnded(ended)],
      outbox: this.deps.notifications.crewEnded(ended),
      now,
    });
  }

  async #current(executionId: string): Promise<Execution> {
    const execution = this.#latest.get(executionId) ?? (await this.deps.store.getExecution(executionId));
    if (execution === null || execution.state !== 'RUNNING') throw new ExecutionSuperseded();
    return execution;
  }

  /** Applies a change that must hold; if another writer (a cancel) got there first, this run stops. */
  async #must(change: ExecutionChange): Promise<void> {
    if ((await this.#apply(change)) === null) throw new ExecutionSuperseded();
  }

  async #apply(change: ExecutionChange): Promise<Execution | null> {
    const execution = await this.deps.store.applyChange(change);
    if (execution === null) return null;
    if (this.#controllers.has(execution.id)) this.#latest.set(execution.id, execution);
    this.deps.observer.onCommitted(execution, (change.outbox?.length ?? 0) > 0);
    return execution;
  }
}
