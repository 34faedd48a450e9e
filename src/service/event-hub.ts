import type { Execution } from '../domain/execution.ts';
import type { ExecutionChange, StoredExecutionEvent } from '../store/store.ts';

/** Events a subscription holds before it gives up on them and tells its reader to read the store instead. */
const subscriptionCapacity = 1000;

/**
 * Hands the events of each change committed in this process to the streams watching that execution, so a stream
 * in this process needs no store read to follow it. Streams still read the store when a subscription cannot
 * vouch for having every event (a gap, an overflow, a quiet spell, a nudge): events written by another process
 * sharing the database arrive that way, at once when its notice comes.
 */
export class EventHub {
  readonly #subscriptions = new Map<string, Set<EventSubscription>>();

  /** Called after `change` was committed and `execution` is what the store returned. */
  publish(execution: Execution, change: ExecutionChange): void {
    const subscriptions = this.#subscriptions.get(execution.id);
    if (subscriptions === undefined || change.events === undefined || change.events.length === 0) return;
    const first = execution.lastEventSequence - change.events.length + 1;
    const events = change.events.map((event, index): StoredExecutionEvent => ({
      ...event,
      executionId: execution.id,
      sequence: first + index,
      createdAt: change.now,
    }));
    for (const subscription of subscriptions) subscription.push(events);
  }

  /**
   * Another process wrote to this execution (or, without an id, may have written to any): its streams read the
   * store at once instead of at their next poll.
   */
  nudge(executionId?: string): void {
    const streams =
      executionId === undefined ? [...this.#subscriptions.values()] : [this.#subscriptions.get(executionId)];
    for (const subscriptions of streams)
      for (const subscription of subscriptions ?? []) subscription.readStore();
  }

  /** Collects the events published for this execution from now on, until closed. */
  subscribe(executionId: string): EventSubscription {
    const subscriptions = this.#subscriptions.get(executionId) ?? new Set<EventSubscription>();
    this.#subscriptions.set(executionId, subscriptions);
    const subscription = new EventSubscription(() => {
      subscriptions.delete(subscription);
      if (subscriptions.size === 0 && this.#subscriptions.get(executionId) === subscriptions) {
        this.#subscriptions.delete(executionId);
      }
    });
    subscriptions.add(subscription);
    return subscription;
  }
}

export class EventSubscription {
  #queue: StoredExecutionEvent[] = [];
  /** Set when events were dropped or written elsewhere: only the store knows them. */
  #mustRead = false;
  #wake: (() => void) | undefined;

  constructor(readonly close: () => void) {}

  push(events: readonly StoredExecutionEvent[]): void {
    if (this.#mustRead || this.#queue.length + events.length > subscriptionCapacity) {
      this.readStore();
      return;
    }
    this.#queue.push(...events);
    this.#wake?.();
  }

  /** Tells the reader to read the store, now or at its next wait. */
  readStore(): void {
    this.#mustRead = true;
    this.#queue = [];
    this.#wake?.();
  }

  /**
   * Waits up to `timeoutMs` for published events and takes them, oldest first. Resolves with null when none came
   * in time, when the signal aborted, or when some were dropped: then only the store knows what was missed.
   */
  next(timeoutMs: number, signal: AbortSignal): Promise<StoredExecutionEvent[] | null> {
    if (this.#queue.length > 0 || this.#mustRead) return Promise.resolve(this.#take());
    if (signal.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.#wake = undefined;
        resolve(this.#take());
      };
      const timer = setTimeout(done, timeoutMs);
      signal.addEventListener('abort', done, { once: true });
      this.#wake = done;
    });
  }

  #take(): StoredExecutionEvent[] | null {
    const events = this.#mustRead || this.#queue.length === 0 ? null : this.#queue;
    this.#queue = [];
    this.#mustRead = false;
    return events;
  }
}
