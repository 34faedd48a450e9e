/**
 * Decides when a queued execution runs. The in-process one here runs at most `concurrency` at once; a job engine
 * shared by several processes can take its place behind the same interface.
 */
export interface Dispatcher {
  /** Queues an execution; running it twice at once is prevented by the dispatcher. */
  submit(executionId: string): void;
  /**
   * How many more executions it would start now: its concurrency less those running and queued. Asking when there
   * is none asks to be told (`onRoom`) once a run ends and there is.
   */
  room(): number;
  /** Stops starting new work and resolves when running work has ended or the deadline passed. */
  drain(deadlineMs: number): Promise<void>;
}

export type ExecutionHandler = (executionId: string) => Promise<void>;

export function createLocalDispatcher(options: {
  concurrency: number;
  run: ExecutionHandler;
  onError: (executionId: string, error: unknown) => void;
  /** Called when a run ends with nothing queued after `room()` was asked and found none: work may be waiting. */
  onRoom?: () => void;
}): Dispatcher {
  const queue: string[] = [];
  const queued = new Set<string>();
  const running = new Map<string, Promise<void>>();
  let draining = false;
  /** `room()` found none since the last `onRoom`. */
  let wanted = false;

  function pump(): void {
    while (!draining && running.size < options.concurrency && queue.length > 0) {
      const executionId = queue.shift() as string;
      queued.delete(executionId);
      const job = options
        .run(executionId)
        .catch((error: unknown) => options.onError(executionId, error))
        .finally(() => {
          running.delete(executionId);
          pump();
          if (wanted && !draining && queue.length === 0) {
            wanted = false;
            options.onRoom?.();
          }
        });
      running.set(executionId, job);
    }
  }

  return {
    submit(executionId) {
      if (draining || queued.has(executionId) || running.has(executionId)) return;
      queued.add(executionId);
      queue.push(executionId);
      pump();
    },
    room() {
      if (draining) return 0;
      const free = Math.max(0, options.concurrency - running.size - queue.length);
      if (free === 0) wanted = true;
      return free;
    },
    async drain(deadlineMs) {
      draining = true;
      queue.length = 0;
      queued.clear();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, deadlineMs);
      });
      await Promise.race([Promise.allSettled([...running.values()]), deadline]);
      clearTimeout(timer);
    },
  };
}
