import type { Execution } from '../domain/execution.ts';

/**
 * Decides when a queued execution runs. The in-process one here runs at most `concurrency` at once; a job engine
 * shared by several processes can take its place behind the same interface.
 */
export interface Dispatcher {
  /**
   * Queues an execution; running it twice at once is prevented by the dispatcher. `committed` is the execution as
   * the caller just committed it, handed to the run so it need not read it back.
   */
  submit(executionId: string, committed?: Execution): void;
  /**
   * Holds up to `most` free slots for executions about to be queued (leased or claimed first, which takes a round
   * trip to the store): until they are submitted or released, `room()` and other reservations do not count them
   * as free, so work arriving at once is never promised more room than there is.
   */
  reserve(most: number): Reservation;
  /**
   * How many more executions it would start now: its concurrency less those running, queued and reserved. Asking
   * when there is none asks to be told (`onRoom`) once a run ends or a reservation is released and there is.
   */
  room(): number;
  /** The executions queued or running here: this process has them in hand, whatever their leases say. */
  inHand(): readonly string[];
  /** Stops starting new work and resolves when running work has ended or the deadline passed. */
  drain(deadlineMs: number): Promise<void>;
}

/** Free slots held for executions about to be queued. */
export interface Reservation {
  /** Slots held and not used yet. */
  readonly size: number;
  /** Queues an execution in one of the held slots; one already queued or running here just frees the slot. */
  submit(executionId: string, committed?: Execution): void;
  /** Frees the slots not used. */
  release(): void;
}

/** Runs an execution; `committed`, when given, is the execution as last committed, to start from without a read. */
export type ExecutionHandler = (executionId: string, committed?: Execution) => Promise<void>;

export function createLocalDispatcher(options: {
  concurrency: number;
  run: ExecutionHandler;
  onError: (executionId: string, error: unknown) => void;
  /** Called when room was asked for and found none, and there is some again: work may be waiting. */
  onRoom?: () => void;
}): Dispatcher {
  const queue: string[] = [];
  /** The queued executions that came with their committed copy. */
  const queued = new Map<string, Execution | undefined>();
  const running = new Map<string, Promise<void>>();
  let reserved = 0;
  let draining = false;
  /** `room()` found none since the last `onRoom`. */
  let wanted = false;

  function free(): number {
    return draining ? 0 : Math.max(0, options.concurrency - running.size - queue.length - reserved);
  }

  function tellOfRoom(): void {
    if (wanted && !draining && queue.length === 0 && free() > 0) {
      wanted = false;
      options.onRoom?.();
    }
  }

  function pump(): void {
    while (!draining && running.size < options.concurrency && queue.length > 0) {
      const executionId = queue.shift() as string;
      const committed = queued.get(executionId);
      queued.delete(executionId);
      const job = options
        .run(executionId, committed)
        .catch((error: unknown) => options.onError(executionId, error))
        .finally(() => {
          running.delete(executionId);
          pump();
          tellOfRoom();
        });
      running.set(executionId, job);
    }
  }

  function submit(executionId: string, committed?: Execution): void {
    if (draining || queued.has(executionId) || running.has(executionId)) return;
    queued.set(executionId, committed);
    queue.push(executionId);
    pump();
  }

  function room(): number {
    const room = free();
    if (room === 0) wanted = true;
    return room;
  }

  return {
    submit,
    reserve(most) {
      let held = Math.min(most, room());
      reserved += held;
      return {
        get size() {
          return held;
        },
        submit(executionId, committed) {
          if (held > 0) {
            held -= 1;
            reserved -= 1;
          }
          submit(executionId, committed);
        },
        release() {
          reserved -= held;
          held = 0;
          tellOfRoom();
        },
      };
    },
    room,
    inHand: () => [...running.keys(), ...queue],
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
