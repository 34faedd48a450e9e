/**
 * Wakes event watchers in this process as soon as an execution's events are committed. Watchers also poll, so
 * events written by another process sharing the database still arrive.
 */
export class EventHub {
  readonly #waiters = new Map<string, Set<() => void>>();

  notify(executionId: string): void {
    const waiters = this.#waiters.get(executionId);
    if (waiters === undefined) return;
    this.#waiters.delete(executionId);
    for (const wake of waiters) wake();
  }

  /** Resolves on the next notify for this execution, after `timeoutMs`, or when the signal aborts. */
  wait(executionId: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const waiters = this.#waiters.get(executionId) ?? new Set<() => void>();
      this.#waiters.set(executionId, waiters);
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        waiters.delete(done);
        if (waiters.size === 0 && this.#waiters.get(executionId) === waiters)
          this.#waiters.delete(executionId);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal.addEventListener('abort', done, { once: true });
      waiters.add(done);
    });
  }
}
