import { isFinished, type Execution } from '../domain/execution.ts';

/**
 * The most recently read finished executions. A finished execution never changes again, in this process or any
 * other sharing the database, so clients polling for a result are answered without reading the store.
 */
export class FinishedExecutions {
  readonly #entries = new Map<string, Execution>();

  constructor(private readonly capacity: number) {}

  get(id: string): Execution | undefined {
    return this.#entries.get(id);
  }

  /** Remembers the execution when it is finished; the oldest entry makes room. */
  offer(execution: Execution): void {
    if (!isFinished(execution.state) || this.#entries.has(execution.id)) return;
    if (this.#entries.size >= this.capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    this.#entries.set(execution.id, execution);
  }
}
