import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { executionStates } from '../domain/execution.ts';
import type { ExecutionState } from '../domain/execution.ts';
import type { TokenUsage } from '../domain/usage.ts';
import { storeUnavailableReasons } from '../store/store-unavailable.ts';

/** What a store error was: one of the outages, or `rejected` (the database refused a statement). */
export type StoreErrorKind = (typeof storeUnavailableReasons)[number] | 'rejected';

/** Where the gauges read their values at scrape time. */
export interface MetricsSources {
  readonly countByState?: () => Promise<Readonly<Record<ExecutionState, number>>>;
  readonly countFailedDeliveries?: () => Promise<number>;
}

export interface MetricsOptions {
  /** Adds Node.js process metrics (memory, CPU, event loop); the server turns this on, tests usually do not. */
  readonly processMetrics?: boolean;
}

const secondsBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const longSecondsBuckets = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

/**
 * crewd's Prometheus metrics, in a registry of its own (never prom-client's global one), so several servers in one
 * process, as in tests, do not collide.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly #httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly #httpDuration: Histogram<'method' | 'route'>;
  readonly #taskDuration: Histogram;
  readonly #modelCallDuration: Histogram<'model'>;
  readonly #tokens: Counter<'model' | 'kind'>;
  readonly #storeErrors: Counter<'kind'>;

  constructor(sources: MetricsSources = {}, options: MetricsOptions = {}) {
    const registers = [this.registry];
    this.#httpRequests = new Counter({
      name: 'crewd_http_requests_total',
      help: 'HTTP requests served, by route and status code',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.#httpDuration = new Histogram({
      name: 'crewd_http_request_duration_seconds',
      help: 'Time to answer HTTP requests',
      labelNames: ['method', 'route'],
      buckets: secondsBuckets,
      registers,
    });
    this.#taskDuration = new Histogram({
      name: 'crewd_task_duration_seconds',
      help: 'Time one task attempt took, model calls and tools included',
      buckets: longSecondsBuckets,
      registers,
    });
    this.#modelCallDuration = new Histogram({
      name: 'crewd_model_call_duration_seconds',
      help: 'Time one model call took',
      labelNames: ['model'],
      buckets: longSecondsBuckets,
      registers,
    });
    this.#tokens = new Counter({
      name: 'crewd_model_tokens_total',
      help: 'Tokens used by model calls, by model and kind (prompt or completion)',
      labelNames: ['model', 'kind'],
      registers,
    });
    this.#storeErrors = new Counter({
      name: 'crewd_store_errors_total',
      help: 'Store operations that failed, by kind: unreachable, busy, disk-full, read-only, io-error or rejected',
      labelNames: ['kind'],
      registers,
    });
    for (const kind of [...storeUnavailableReasons, 'rejected']) this.#storeErrors.inc({ kind }, 0);
    const countByState = sharedWhileRunning(sources.countByState);
    new Gauge({
      name: 'crewd_queue_depth',
      help: 'Executions waiting to start (PENDING) across every process sharing the store',
      registers,
      async collect() {
        if (countByState === undefined) return;
        const counts = await countByState().catch(() => null);
        if (counts !== null) this.set(counts.PENDING ?? 0);
      },
    });
    new Gauge({
      name: 'crewd_executions',
      help: 'Executions in the store, by state',
      labelNames: ['state'],
      registers,
      async collect() {
        if (countByState === undefined) return;
        // A scrape while the store is down keeps the last values rather than failing the whole page.
        const counts = await countByState().catch(() => null);
        if (counts === null) return;
        for (const state of executionStates) this.set({ state }, counts[state] ?? 0);
      },
    });
    const countFailed = sources.countFailedDeliveries;
    new Gauge({
      name: 'crewd_webhook_deliveries_failed',
      help: 'Webhook messages that exhausted their retries',
      registers,
      async collect() {
        if (countFailed === undefined) return;
        const failed = await countFailed().catch(() => null);
        if (failed !== null) this.set(failed);
      },
    });
    if (options.processMetrics === true) collectDefaultMetrics({ register: this.registry, prefix: 'crewd_' });
  }

  /** `route` is the route pattern (`/status/:kickoffId`), never the raw URL, to keep label values bounded. */
  observeHttpRequest(method: string, route: string, status: number, seconds: number): void {
    this.#httpRequests.inc({ method, route, status: String(status) });
    this.#httpDuration.observe({ method, route }, seconds);
  }

  observeTask(seconds: number): void {
    this.#taskDuration.observe(seconds);
  }

  observeModelCall(model: string, seconds: number, usage: TokenUsage): void {
    this.#modelCallDuration.observe({ model }, seconds);
    this.#tokens.inc({ model, kind: 'prompt' }, usage.promptTokens);
    this.#tokens.inc({ model, kind: 'completion' }, usage.completionTokens);
  }

  observeStoreError(kind: StoreErrorKind): void {
    this.#storeErrors.inc({ kind });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The text exposition format, for `GET /metrics`. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}

/** One call at a time: gauges collected in the same scrape share one count instead of querying the store each. */
function sharedWhileRunning<T>(read: (() => Promise<T>) | undefined): (() => Promise<T>) | undefined {
  if (read === undefined) return undefined;
  let running: Promise<T> | undefined;
  return () =>
    (running ??= read().finally(() => {
      running = undefined;
    }));
}
