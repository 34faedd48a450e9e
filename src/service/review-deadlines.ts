import type { Store } from '../store/store.ts';

export interface ReviewDeadlinesDeps {
  readonly store: Store;
  readonly clock: () => Date;
  /** Answers one review whose deadline passed; false when there was nothing to answer (or another got there first). */
  readonly answer: (executionId: string) => Promise<boolean>;
  /** How often to look for deadlines that passed; the clock decides which have. */
  readonly scanMs: number;
  readonly onAnswered?: (executionId: string) => void;
  readonly onError: (error: unknown) => void;
}

/** Reviews answered per store read; a pass goes on reading until none is due. */
const batchSize = 100;

/**
 * Answers reviews whose deadlines passed. Deadlines are stored with their pauses, so one that passed while every
 * process was down is answered by the first scan after a start. Every process scans: the answer is a guarded
 * change, so of several processes (or a person's `/resume` at the same moment) exactly one answers each review.
 */
export class ReviewDeadlines {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | undefined;
  #stopped = false;

  constructor(private readonly deps: ReviewDeadlinesDeps) {}

  start(): void {
    this.#timer = setInterval(() => {
      void this.scan();
    }, this.deps.scanMs).unref();
    void this.scan();
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
  }

  /** One pass: answers every review due now; resolves with how many this process answered. A pass under way is joined. */
  scan(): Promise<number> {
    this.#running ??= this.#pass()
      .catch((error: unknown) => {
        this.deps.onError(error);
        return 0;
      })
      .finally(() => {
        this.#running = undefined;
      });
    return this.#running;
  }

  async #pass(): Promise<number> {
    let answered = 0;
    // Ids found due but answered elsewhere stay listed until that answer commits; they are not tried again here.
    const tried = new Set<string>();
    while (!this.#stopped) {
      const due = (await this.deps.store.listDueReviews(this.deps.clock(), batchSize + tried.size)).filter(
        (id) => !tried.has(id),
      );
      if (due.length === 0) return answered;
      for (const executionId of due) {
        tried.add(executionId);
        if (await this.deps.answer(executionId)) {
          answered += 1;
          this.deps.onAnswered?.(executionId);
        }
      }
    }
    return answered;
  }
}
