import type { Execution } from '../domain/execution.ts';

/**
 * The most recently read executions, so clients polling for a status are answered without reading whole rows. A
 * finished execution never changes again, in this process or any other sharing the database, so it is current as
 * it is; any other copy is current only while the store still holds its revision.
 */
export class RecentExecutions {
  readonly #entries = new Map<string, Execution>();

  constructor(private readonly capacity: number) {}

  get(id: string): Execution | undefined {
    return this.#entries.get(id);
  }

  /** Remembers this copy unless a later revision is already known; the oldest entry makes room. */
  remember(execution: Execution): void {
    const known = this.#entries.get(execution.id);
    if (known !== undefined) {
      if (known.revision >= execution.revision) return;
      this.#entries.delete(execution.id);
    } else if (this.#entries.size >= this.capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    this.#entries.set(execution.id, execution);
  }
}
