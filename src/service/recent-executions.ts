import type { Execution } from '../domain/execution.ts';
import { executionWeight } from './execution-weight.ts';

/**
 * The most recently read executions, so clients polling for a status are answered without reading whole rows. A
 * finished execution never changes again, in this process or any other sharing the database, so it is current as
 * it is; any other copy is current only while the store still holds its revision.
 *
 * Bounded by bytes, since one execution may be a thousand times larger than another and the status body kept beside
 * each one repeats its `meta` once per task; and by entries, since the estimate leaves out what every object costs
 * the heap, so many small executions would otherwise hold far more memory than their bytes say.
 */
export class RecentExecutions {
  readonly #entries = new Map<string, { readonly execution: Execution; readonly bytes: number }>();
  #bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly maxEntries = Number.POSITIVE_INFINITY,
  ) {}

  get(id: string): Execution | undefined {
    return this.#entries.get(id)?.execution;
  }

  /** Bytes held by the executions kept, as estimated (with their status bodies). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Remembers this copy unless a later revision is already known; the oldest entries make room. */
  remember(execution: Execution): void {
    const known = this.#entries.get(execution.id);
    if (known !== undefined) {
      if (known.execution.revision >= execution.revision) return;
      this.#forget(execution.id);
    }
    const bytes = executionWeight(execution);
    if (bytes > this.maxBytes) return;
    while (this.#bytes + bytes > this.maxBytes || this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#forget(oldest.value);
    }
    this.#entries.set(execution.id, { execution, bytes });
    this.#bytes += bytes;
  }

  /** Lets go of an execution that no longer exists (deleted by retention). */
  forget(id: string): void {
    this.#forget(id);
  }

  #forget(id: string): void {
    const entry = this.#entries.get(id);
    if (entry === undefined) return;
    this.#entries.delete(id);
    this.#bytes -= entry.bytes;
  }
}
