import type { Lifecycle } from './lifecycle.ts';

/**
 * `starting` until `running()`, then `stopping` and `stopped`; `failed` once a failed start has been undone. One
 * state for the whole process, as its parts only ever start and stop together.
 */
export type LifecycleState = 'starting' | 'running' | 'stopping' | 'stopped' | 'failed';

export interface ProcessLifecycleOptions {
  /**
   * Hears a part that failed to stop when its error is not the one passed on: while a failed start is undone, and
   * any after the first during a shutdown.
   */
  readonly onStopError: (part: string, error: unknown) => void;
}

/**
 * The long-lived parts of one process, started in order and stopped in reverse order, so each part stops while
 * the parts it depends on still run. A shutdown has two steps: every part stops taking work at once (newest
 * first), then each part stops in turn (newest first), which lets the ones that drain work finish it while the
 * store, the feed and the tools are still there.
 *
 * A start that fails, in a part or in the wiring between parts (`fail`), stops the parts already started and
 * passes the start's error on.
 */
export class ProcessLifecycle {
  #state: LifecycleState = 'starting';
  readonly #started: Lifecycle[] = [];
  #stopping: Promise<void> | undefined;

  constructor(private readonly options: ProcessLifecycleOptions) {}

  get state(): LifecycleState {
    return this.#state;
  }

  /** Starts `part` after those started before it; when it fails, undoes the start (see `fail`). */
  async start(part: Lifecycle): Promise<void> {
    if (this.#state !== 'starting') {
      throw new Error(`cannot start ${part.name} once the process is ${this.#state}`);
    }
    try {
      await part.start();
    } catch (error) {
      return this.fail(error);
    }
    this.#started.push(part);
  }

  /**
   * Starts a part that is a resource to use: `open` is its start and `close`, given what `open` resolved to, its
   * stop. Resolves to what `open` resolved to.
   */
  async open<T>(name: string, open: () => Promise<T>, close: (value: T) => Promise<void>): Promise<T> {
    const resource = new OpenedResource(name, open, close);
    await this.start(resource);
    return resource.value;
  }

  /**
   * Opens one resource for each item, up to `concurrency` at a time: parts that do not depend on one another, whose
   * waits (files, commits) then overlap. They become parts in the items' order. When one fails, no more are
   * opened, and once those under way have settled the start is undone (see `fail`) with the first failure in the
   * items' order.
   */
  async openEach<Item, T>(
    items: readonly Item[],
    concurrency: number,
    partOf: (item: Item) => {
      readonly name: string;
      readonly open: () => Promise<T>;
      readonly close: (value: T) => Promise<void>;
    },
  ): Promise<T[]> {
    if (this.#state !== 'starting') throw new Error(`cannot open parts once the process is ${this.#state}`);
    const resources = items.map((item) => {
      const part = partOf(item);
      return new OpenedResource(part.name, part.open, part.close);
    });
    const opened = new Set<number>();
    const failures: { readonly index: number; readonly error: unknown }[] = [];
    let next = 0;
    const openNext = async (): Promise<void> => {
      while (failures.length === 0 && next < resources.length) {
        const index = next;
        next += 1;
        try {
          await resources[index]!.start();
          opened.add(index);
        } catch (error) {
          failures.push({ index, error });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(Math.max(1, concurrency), resources.length) }, openNext));
    resources.forEach((resource, index) => {
      if (opened.has(index)) this.#started.push(resource);
    });
    const [first] = failures.sort((a, b) => a.index - b.index);
    if (first !== undefined) return this.fail(first.error);
    return resources.map((resource) => resource.value);
  }

  /** Every part has started. */
  running(): void {
    if (this.#state === 'starting') this.#state = 'running';
  }

  /** Undoes a start that failed: stops the parts already started, in reverse order, and rejects with `error`. */
  async fail(error: unknown): Promise<never> {
    if (this.#state === 'starting') {
      this.#state = 'failed';
      for (const failure of await this.#stopStarted()) this.options.onStopError(failure.part, failure.error);
    }
    throw error;
  }

  /**
   * Stops every started part: first each stops taking work, then each stops, newest first. A part that fails to
   * stop does not keep the others from stopping; the first such error is passed on once all have stopped. Calling
   * it again returns the same promise.
   */
  stop(): Promise<void> {
    this.#stopping ??= this.#stopRunning();
    return this.#stopping;
  }

  async #stopRunning(): Promise<void> {
    if (this.#state === 'failed') return;
    this.#state = 'stopping';
    const [first, ...others] = await this.#stopStarted();
    this.#state = 'stopped';
    for (const failure of others) this.options.onStopError(failure.part, failure.error);
    if (first !== undefined) throw first.error;
  }

  async #stopStarted(): Promise<StopFailure[]> {
    const newestFirst = this.#started.splice(0).reverse();
    const failures: StopFailure[] = [];
    for (const part of newestFirst) {
      try {
        part.stopTakingWork?.();
      } catch (error) {
        failures.push({ part: part.name, error });
      }
    }
    for (const part of newestFirst) {
      try {
        await part.stop();
      } catch (error) {
        failures.push({ part: part.name, error });
      }
    }
    return failures;
  }
}

interface StopFailure {
  readonly part: string;
  readonly error: unknown;
}

/** A resource as a part: open at start, closed at stop. */
class OpenedResource<T> implements Lifecycle {
  #opened: { readonly value: T } | undefined;

  constructor(
    readonly name: string,
    private readonly openResource: () => Promise<T>,
    private readonly closeResource: (value: T) => Promise<void>,
  ) {}

  get value(): T {
    if (this.#opened === undefined) throw new Error(`${this.name} is not open`);
    return this.#opened.value;
  }

  async start(): Promise<void> {
    this.#opened = { value: await this.openResource() };
  }

  stop(): Promise<void> {
    return this.#opened === undefined ? Promise.resolve() : this.closeResource(this.#opened.value);
  }
}
