import type { CrewDefinition } from '../domain/crew.ts';
import { reachesCrew } from '../domain/crew-name.ts';
import { CrewdError } from '../domain/errors.ts';
import type { A2aPushTarget, Execution } from '../domain/execution.ts';
import type { DeliveryRecord, ExecutionPage, StoredExecutionEvent, Store } from '../store/store.ts';
import { listExecutions } from './durable-execution-service.ts';
import type {
  Caller,
  ExecutionAccess,
  ExecutionService,
  ListRequest,
  ResumeRequest,
  ResumeResult,
} from './execution-service.ts';

/**
 * The executions of every crew a server serves, as its root answers for them when it serves several: each id is
 * handed to its own crew's service, so the rules are that service's, and the list holds every crew the caller's
 * token reaches. Kickoffs are each crew's own, under its base URL.
 */
export class EveryCrewAccess implements ExecutionAccess {
  constructor(
    private readonly store: Store,
    private readonly services: ReadonlyMap<string, ExecutionService>,
  ) {}

  async get(executionId: string, caller: Caller): Promise<Execution> {
    return (await this.#serviceOf(executionId, caller)).get(executionId, caller);
  }

  crewOf(execution: Execution): CrewDefinition {
    const service = execution.crew == null ? undefined : this.services.get(execution.crew);
    if (service === undefined) throw notFound(execution.id);
    return service.crewOf(execution);
  }

  async resume(request: ResumeRequest): Promise<ResumeResult> {
    return (await this.#serviceOf(request.executionId, request.caller)).resume(request);
  }

  async cancel(executionId: string, caller: Caller): Promise<Execution> {
    return (await this.#serviceOf(executionId, caller)).cancel(executionId, caller);
  }

  async list(request: ListRequest): Promise<ExecutionPage> {
    const crews = [...this.services.keys()].filter((name) => reachesCrew(request.caller.crews, name));
    if (crews.length === 0) return { items: [], nextCursor: null };
    const page = await listExecutions(this.store, request, crews);
    // Each one's crew version is loaded by its own service, so `crewOf` answers for every item.
    for (const execution of page.items) {
      await this.services.get(execution.crew ?? '')?.loadCrewOf?.(execution);
    }
    return page;
  }

  async openEventStream(
    executionId: string,
    caller: Caller,
    afterSequence: number,
    signal: AbortSignal,
  ): Promise<AsyncIterable<StoredExecutionEvent>> {
    const service = await this.#serviceOf(executionId, caller);
    return service.openEventStream(executionId, caller, afterSequence, signal);
  }

  async deliveries(executionId: string, caller: Caller): Promise<readonly DeliveryRecord[]> {
    return (await this.#serviceOf(executionId, caller)).deliveries(executionId, caller);
  }

  async replaceA2aPush(
    executionId: string,
    caller: Caller,
    update: (current: readonly A2aPushTarget[]) => readonly A2aPushTarget[],
  ): Promise<Execution> {
    return (await this.#serviceOf(executionId, caller)).replaceA2aPush(executionId, caller, update);
  }

  /** The service of the execution's crew; one the caller's token does not reach answers as unknown. */
  async #serviceOf(executionId: string, caller: Caller): Promise<ExecutionService> {
    const execution = await this.store.getExecution(executionId);
    const crew = execution?.crew ?? null;
    const service = crew === null ? undefined : this.services.get(crew);
    if (crew === null || service === undefined || !reachesCrew(caller.crews, crew))
      throw notFound(executionId);
    return service;
  }
}

function notFound(executionId: string): CrewdError {
  return new CrewdError('NOT_FOUND', `No execution with id ${executionId}`);
}
