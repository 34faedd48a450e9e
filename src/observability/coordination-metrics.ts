import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

const lagBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** How the processes sharing a database work together, seen from this one; registered in crewd's registry. */
export class CoordinationMetrics {
  readonly #takeovers: Counter;
  readonly #noticeLag: Histogram;

  constructor(registry: Registry, runningHere: () => number) {
    const registers = [registry];
    this.#takeovers = new Counter({
      name: 'crewd_lease_takeovers_total',
      help: 'Executions this process took over from a process that died or whose lease ran out',
      registers,
    });
    this.#noticeLag = new Histogram({
      name: 'crewd_notification_lag_seconds',
      help: "Time from another process's commit (on the database's clock) to its notice arriving here",
      buckets: lagBuckets,
      registers,
    });
    new Gauge({
      name: 'crewd_executions_running_here',
      help: 'Executions running in this process',
      registers,
      collect() {
        this.set(runningHere());
      },
    });
  }

  observeTakeovers(count: number): void {
    if (count > 0) this.#takeovers.inc(count);
  }

  observeNoticeLag(seconds: number): void {
    this.#noticeLag.observe(seconds);
  }
}
