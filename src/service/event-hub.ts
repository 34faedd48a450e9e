import type { Execution } from '../domain/execution.ts';
import type { ExecutionChange, StoredExecutionEvent } from '../store/store.ts';

/** Events a subscription holds before it gives up on them and tells its reader to read the store instead. */
const subscriptionCapacity = 1000;

/**
 * Hands the events of each change committed in this process to the streams watching that execution, so a stream
 * in this process needs no store read to follow it. Streams still read the store when a subscription cannot
 * vouch for having every event (a gap, an overflow, a quiet spell): events written by another process sharing
 * the database arrive that way.
 */
export class EventHub {
  readonly #subscriptions = new Map<string, Set<EventSubscription>>();

  /** Called after `change` was committed and `execution` is what the store returned. */
  publish(execution: Execution, change: ExecutionChange): void {
    const subscriptions = this.#subscriptions.get(execution.id);
    if (subscriptions === undefined || change.events === undefined || change.events.length === 0) return;
    const first = execution.lastEventSequence - change.events.length + 1;
    const events = change.events.map((event, index): StoredExecutionEvent => ({
      executionId: execution.id,
      sequence: first + index,
      type: event.type,
      data: event.data,
      createdAt: change.now,
    }));
    for (const subscription of subscriptions) subscription.push(events);
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
  #overflowed = false;
  #wake: (() => void) | undefined;

  constructor(readonly close: () => void) {}

  push(events: readonly StoredExecutionEvent[]): void {
    if (this.#overflowed || this.#queue.length + events.length > subscriptionCapacity) {
      this.#overflowed = true;
      this.#queue = [];
    } else {
      this.#queue.push(...events);
    }
    this.#wake?.();
  }

  /**
   * Waits up to `timeoutMs` for published events and takes them, oldest first. Resolves with null when none came
   * in time, when the signal aborted, or when some were dropped: then only the store knows what was missed.
   */
  next(timeoutMs: number, signal: AbortSignal): Promise<StoredExecutionEvent[] | null> {
    if (this.#queue.length > 0 || this.#overflowed) return Promise.resolve(this.#take());
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
    const events = this.#overflowed || this.#queue.length === 0 ? null : this.#queue;
    this.#queue = [];
    this.#overflowed = false;
    return events;
  }
}
