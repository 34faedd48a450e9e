import type { RetentionStore } from '../store/store.ts';

export interface PruneOptions {
  readonly store: RetentionStore;
  /** Called for each execution once its rows are gone: its files (its workspace) go, copies kept of it too. */
  readonly onDeleted: (executionId: string) => Promise<void>;
  /** Finished executions that ended longer ago than this are deleted. */
  readonly retentionMs: number;
  readonly clock: () => Date;
  /** Executions deleted per transaction (default 100): small, so no batch holds the database for long. */
  readonly batchSize?: number;
}

const defaultBatchSize = 100;

/**
 * Deletes every finished execution that ended more than `retentionMs` before now, with its events, webhook
 * messages and files, batch by batch; between batches the event loop serves requests. Resolves with how many.
 */
export async function pruneFinished(options: PruneOptions): Promise<number> {
  const batchSize = options.batchSize ?? defaultBatchSize;
  // Fixed at the start: executions ending while this runs wait for the next pass.
  const before = new Date(options.clock().getTime() - options.retentionMs);
  let deleted = 0;
  for (;;) {
    const ids = await options.store.deleteFinishedBefore(before, batchSize);
    for (const id of ids) await options.onDeleted(id);
    deleted += ids.length;
    if (ids.length < batchSize) return deleted;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

export interface RetentionSchedule {
  /** Stops the passes; resolves once a pass in progress has ended. */
  stop(): Promise<void>;
}

/**
 * Prunes at once and then every `everyMs` (a pass never overlaps the one before). `onPass` hears how many each
 * pass deleted, `onError` why one failed (the next pass tries again).
 */
export function scheduleRetention(
  options: PruneOptions & {
    readonly everyMs: number;
    readonly onPass: (deleted: number) => void;
    readonly onError: (error: unknown) => void;
  },
): RetentionSchedule {
  let running: Promise<void> | undefined;
  const pass = (): void => {
    running ??= pruneFinished(options)
      .then(options.onPass, options.onError)
      .finally(() => {
        running = undefined;
      });
  };
  pass();
  const timer = setInterval(pass, options.everyMs).unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
