import type { ExecutionState } from '../domain/execution.ts';

type Counts = Readonly<Record<ExecutionState, number>>;

export interface StateCountsDeps {
  /** Counts executions in the given states (every state's key present, zeros included). */
  readonly count: (states: readonly ExecutionState[]) => Promise<Counts>;
  /** Milliseconds. */
  readonly now: () => number;
  /** Finished executions fewer than this are counted on every read. */
  readonly recountFinishedBelow?: number;
  /** Beyond that, how long a count of finished executions is used before it is taken again. */
  readonly finishedCountTtlMs?: number;
}

const activeStates: readonly ExecutionState[] = ['PENDING', 'RUNNING', 'PAUSED'];
const finishedStates: readonly ExecutionState[] = ['SUCCESS', 'FAILED', 'REVOKED'];

/**
 * Executions by state for `/metrics`, at a cost that does not grow with the store. Waiting, running and paused
 * executions are few and counted on every read through the state index. Finished ones pile up until retention
 * deletes them: counting a million takes about 100 ms (on SQLite, on the event loop), so past a threshold their
 * count is taken again only once per interval. Reads that come while a count runs share it.
 */
export class StateCounts {
  readonly #deps: StateCountsDeps;
  #finished: { readonly counts: Counts; readonly at: number; readonly total: number } | undefined;
  #running: Promise<Counts> | undefined;

  constructor(deps: StateCountsDeps) {
    this.#deps = deps;
  }

  read = (): Promise<Counts> =>
    (this.#running ??= this.#count().finally(() => {
      this.#running = undefined;
    }));

  async #count(): Promise<Counts> {
    const active = await this.#deps.count(activeStates);
    const finished = await this.#finishedCounts();
    const counts: Record<ExecutionState, number> = { ...active };
    for (const state of finishedStates) counts[state] = finished[state];
    return counts;
  }

  async #finishedCounts(): Promise<Counts> {
    const { recountFinishedBelow = 100_000, finishedCountTtlMs = 300_000 } = this.#deps;
    const now = this.#deps.now();
    const last = this.#finished;
    if (last !== undefined && last.total >= recountFinishedBelow && now - last.at < finishedCountTtlMs)
      return last.counts;
    const counts = await this.#deps.count(finishedStates);
    const total = finishedStates.reduce((sum, state) => sum + counts[state], 0);
    this.#finished = { counts, at: now, total };
    return counts;
  }
}
