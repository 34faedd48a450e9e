import { randomUUID } from 'node:crypto';
import type { CrewDefinition } from '../../../src/domain/crew.ts';
import { CrewdError, MissingInputsError } from '../../../src/domain/errors.ts';
import { isFinished } from '../../../src/domain/execution.ts';
import { approvalCompletes } from '../../../src/engine/execution-standing.ts';
import type { A2aPushTarget, Execution, ExecutionState } from '../../../src/domain/execution.ts';
import type {
  Caller,
  ExecutionService,
  KickoffRequest,
  ListRequest,
  ResumeRequest,
  ResumeResult,
} from '../../../src/service/execution-service.ts';
import type { DeliveryRecord, ExecutionPage, StoredExecutionEvent } from '../../../src/store/store.ts';
import { exampleCrew, makeExecution } from './example-crew.ts';

/**
 * An ExecutionService held in memory, for testing the HTTP layer on its own: it keeps the port's promises
 * (ownership, pending checks, idempotency, event streaming) and records what the API asked of it.
 */
export class InMemoryExecutionService implements ExecutionService {
  readonly crew: CrewDefinition;
  readonly kickoffs: KickoffRequest[] = [];
  readonly resumes: ResumeRequest[] = [];
  readonly callers: Caller[] = [];
  /** The signals of event watchers, to see that closing a stream aborts its watcher. */
  readonly watchSignals: AbortSignal[] = [];
  /** The executions whose event watchers have ended, in the order they ended. */
  readonly endedWatches: string[] = [];
  /** When set, every call throws it (to test how the API reports failures). */
  failWith: Error | undefined = undefined;

  readonly #executions = new Map<string, Execution>();
  readonly #events = new Map<string, StoredExecutionEvent[]>();
  readonly #deliveries = new Map<string, DeliveryRecord[]>();
  readonly #idempotency = new Map<string, { id: string; body: string }>();
  readonly #listeners = new Set<() => void>();
  #clock = Date.parse('2025-01-01T10:00:00.000Z');

  constructor(crew: CrewDefinition = exampleCrew) {
    this.crew = crew;
  }

  crewOf(): CrewDefinition {
    return this.crew;
  }

  /** Adds or replaces an execution as a test sets it up. */
  put(execution: Execution): Execution {
    this.#executions.set(execution.id, execution);
    this.#notify();
    return execution;
  }

  peek(id: string): Execution | undefined {
    return this.#executions.get(id);
  }

  appendEvent(executionId: string, type: string, data: Record<string, unknown>): StoredExecutionEvent {
    const log = this.#events.get(executionId) ?? [];
    // The HTTP tests stream whatever entries they write; the store's union does not bind them.
    const event = {
      executionId,
      type,
      data,
      sequence: log.length + 1,
      createdAt: new Date(),
    } as StoredExecutionEvent;
    log.push(event);
    this.#events.set(executionId, log);
    this.#notify();
    return event;
  }

  /** Moves an execution to a finished state; its event watchers end once they yielded every event. */
  finish(executionId: string, state: ExecutionState): void {
    const execution = this.#require(executionId);
    this.put({ ...execution, state });
  }

  setDeliveries(executionId: string, records: DeliveryRecord[]): void {
    this.#deliveries.set(executionId, records);
  }

  kickoff(request: KickoffRequest): Promise<{ kickoffId: string }> {
    return settle(() => {
      this.#check(request.caller);
      this.kickoffs.push(request);
      const missing = this.crew.requiredInputs.filter((name) => !(name in request.inputs));
      if (missing.length > 0) throw new MissingInputsError(missing);
      const body = JSON.stringify({ inputs: request.inputs, meta: request.meta, webhooks: request.webhooks });
      const idempotencyKey =
        request.idempotencyKey === null ? null : `${request.caller.tokenId}:${request.idempotencyKey}`;
      if (idempotencyKey !== null) {
        const earlier = this.#idempotency.get(idempotencyKey);
        if (earlier !== undefined) {
          if (earlier.body !== body) {
            throw new CrewdError(
              'IDEMPOTENCY_CONFLICT',
              'Idempotency-Key was used with another request body',
            );
          }
          return { kickoffId: earlier.id };
        }
      }
      this.#clock += 1000;
      const created = new Date(this.#clock);
      const execution = this.put(
        makeExecution({
          id: randomUUID(),
          inputs: request.inputs,
          meta: request.meta,
          webhooks: request.webhooks,
          owner: { tokenId: request.caller.tokenId, userId: request.caller.userId },
          createdAt: created,
          updatedAt: created,
        }),
      );
      if (idempotencyKey !== null) this.#idempotency.set(idempotencyKey, { id: execution.id, body });
      return { kickoffId: execution.id };
    });
  }

  get(executionId: string, caller: Caller): Promise<Execution> {
    return settle(() => {
      this.#check(caller);
      return this.#visible(executionId, caller);
    });
  }

  resume(request: ResumeRequest): Promise<ResumeResult> {
    return settle(() => {
      this.#check(request.caller);
      this.resumes.push(request);
      const execution = this.#visible(request.executionId, request.caller);
      const pending = execution.pending;
      if (execution.state !== 'PAUSED' || pending === null || pending.taskId !== request.taskId) {
        throw new CrewdError('NOT_PENDING_HUMAN_INPUT', `Task ${request.taskId} is not waiting for feedback`);
      }
      if (!request.approve) {
        this.put({ ...execution, state: 'PENDING', pending: null });
        return { status: 'retrying', message: `Task ${request.taskId} runs again with the feedback` };
      }
      const last = approvalCompletes(this.crew, execution.outputs, request.taskId);
      this.put({
        ...execution,
        state: last ? 'SUCCESS' : 'PENDING',
        pending: null,
        outputs: [...execution.outputs, pending.output],
      });
      return last
        ? { status: 'completed', message: 'Execution completed' }
        : { status: 'resumed', message: 'Execution resumed' };
    });
  }

  cancel(executionId: string, caller: Caller): Promise<Execution> {
    return settle(() => {
      this.#check(caller);
      const execution = this.#visible(executionId, caller);
      if (isFinished(execution.state)) return execution;
      return this.put({ ...execution, state: 'REVOKED', pending: null });
    });
  }

  list(request: ListRequest): Promise<ExecutionPage> {
    return settle(() => {
      this.#check(request.caller);
      const visible = [...this.#executions.values()]
        .filter((execution) => this.#canSee(execution, request.caller))
        .filter((execution) => request.state === undefined || execution.state === request.state)
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
      const start = request.cursor === undefined ? 0 : Number(request.cursor);
      if (!Number.isInteger(start) || start < 0)
        throw new CrewdError('VALIDATION_ERROR', 'cursor is invalid');
      const items = visible.slice(start, start + request.limit);
      const next = start + request.limit;
      return { items, nextCursor: next < visible.length ? String(next) : null };
    });
  }

  openEventStream(
    executionId: string,
    caller: Caller,
    afterSequence: number,
    signal: AbortSignal,
  ): Promise<AsyncIterable<StoredExecutionEvent>> {
    return settle(() => {
      this.#check(caller);
      this.#visible(executionId, caller);
      return this.#follow(executionId, afterSequence, signal);
    });
  }

  async *#follow(
    executionId: string,
    afterSequence: number,
    signal: AbortSignal,
  ): AsyncIterable<StoredExecutionEvent> {
    this.watchSignals.push(signal);
    let after = afterSequence;
    try {
      while (!signal.aborted) {
        const changed = this.#nextChange(signal);
        const fresh = (this.#events.get(executionId) ?? []).filter((event) => event.sequence > after);
        for (const event of fresh) {
          after = event.sequence;
          yield event;
        }
        const finished = isFinished(this.#require(executionId).state);
        const caughtUp = (this.#events.get(executionId) ?? []).every((event) => event.sequence <= after);
        if (finished && caughtUp) return;
        await changed;
      }
    } finally {
      this.endedWatches.push(executionId);
    }
  }

  deliveries(executionId: string, caller: Caller): Promise<readonly DeliveryRecord[]> {
    return settle(() => {
      this.#check(caller);
      this.#visible(executionId, caller);
      return this.#deliveries.get(executionId) ?? [];
    });
  }

  replaceA2aPush(
    executionId: string,
    caller: Caller,
    update: (current: readonly A2aPushTarget[]) => readonly A2aPushTarget[],
  ): Promise<Execution> {
    return settle(() => {
      this.#check(caller);
      const execution = this.#visible(executionId, caller);
      const webhooks = { ...execution.webhooks, a2aPush: update(execution.webhooks.a2aPush ?? []) };
      return this.put({ ...execution, webhooks });
    });
  }

  #check(caller: Caller): void {
    this.callers.push(caller);
    if (this.failWith !== undefined) throw this.failWith;
  }

  #require(executionId: string): Execution {
    const execution = this.#executions.get(executionId);
    if (execution === undefined) throw new CrewdError('NOT_FOUND', `Execution ${executionId} not found`);
    return execution;
  }

  #visible(executionId: string, caller: Caller): Execution {
    const execution = this.#require(executionId);
    if (!this.#canSee(execution, caller)) {
      throw new CrewdError('NOT_FOUND', `Execution ${executionId} not found`);
    }
    return execution;
  }

  #canSee(execution: Execution, caller: Caller): boolean {
    return caller.kind === 'org' || execution.owner.userId === caller.userId;
  }

  #nextChange(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.#listeners.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.#listeners.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }
}

/** Runs synchronous work as a promise, so a throw becomes a rejection as from a real service. */
function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}
