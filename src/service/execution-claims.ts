import type { ClaimedExecution, Store } from '../store/store.ts';
import type { Dispatcher } from './dispatcher.ts';

export interface ExecutionClaimsDeps {
  readonly store: Store;
  readonly dispatcher: Dispatcher;
  readonly clock: () => Date;
  readonly lease: { readonly owner: string; readonly durationMs: number };
  /** How often to claim without being woken: leases run out and processes die without a notice. */
  readonly scanMs: number;
  /** Executions one token may have running at once, across every process (`CREWD_TOKEN_CONCURRENCY`). */
  readonly runningPerToken?: number;
  /** The crews this process serves (by name): it claims only their executions, since it could run no other. */
  readonly crews?: readonly string[];
  readonly onClaimed?: (claimed: readonly ClaimedExecution[]) => void;
  readonly onError: (error: unknown) => void;
}

/**
 * Takes work for this process: as many waiting executions as it has room for, and those of processes that are gone
 * or whose leases ran out. Woken by a notice of new work, by a run ending, and every `scanMs`; wake-ups that come
 * while a claim runs are served by one more claim after it. What it has in hand is never claimed: a claim of an
 * execution this process runs would change it under its run, which would then stop, leaving it to wait for its
 * lease to run out.
 */
export class ExecutionClaims {
  #running: Promise<void> | undefined;
  #again = false;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(private readonly deps: ExecutionClaimsDeps) {}

  /** Claims now, and then every `scanMs` until stopped. */
  start(): Promise<void> {
    this.#timer = setInterval(() => this.wake(), this.deps.scanMs).unref();
    return this.claim();
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
  }

  wake(): void {
    void this.claim();
  }

  /** Resolves when a claim that started after this call has ended. */
  claim(): Promise<void> {
    if (this.#running !== undefined) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#claimWhileWoken().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #claimWhileWoken(): Promise<void> {
    do {
      this.#again = false;
      await this.#claimOnce().catch((error: unknown) => this.deps.onError(error));
    } while (this.#again && !this.#stopped);
  }

  async #claimOnce(): Promise<void> {
    // Room is read, not reserved: a kickoff answered while the claim runs is still started here.
    const room = this.deps.dispatcher.room();
    if (this.#stopped || room === 0) return;
    const now = this.deps.clock();
    const { owner, durationMs } = this.deps.lease;
    const until = new Date(now.getTime() + durationMs);
    const inHand = this.deps.dispatcher.inHand();
    const { runningPerToken, crews } = this.deps;
    const claimed = await this.deps.store.claimExecutions(owner, now, until, room, inHand, {
      ...(runningPerToken === undefined ? {} : { runningPerToken }),
      ...(crews === undefined ? {} : { crews }),
    });
    if (claimed.length > 0) this.deps.onClaimed?.(claimed);
    for (const execution of claimed) this.deps.dispatcher.submit(execution.id);
    // Full: more may be waiting. Asking again (there is no room now) gets this process woken when a run ends.
    if (claimed.length === room) this.deps.dispatcher.room();
  }
}
