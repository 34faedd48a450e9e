import type { FastifyBaseLogger } from 'fastify';

/** At most one line per this long while a dependency stays down. */
export const unavailableLogIntervalMs = 10_000;

/**
 * Logs requests answered 503 (or, with its own message, any work that meets an outage) without stacks and at most
 * once per interval, with how many were left out since the last line: in an outage every request fails the same
 * way, and the log must not grow with the request rate.
 */
export class UnavailableLog {
  #lastAt: number | undefined;
  #leftOut = 0;

  /** `message` names what failed; the line adds the reason and how many like it were left out. */
  constructor(
    private readonly log: Pick<FastifyBaseLogger, 'warn'>,
    private readonly now: () => number,
    private readonly message = 'answered 503: a dependency is unavailable',
  ) {}

  /** `route`: the route pattern, or for work outside requests what was doing it. */
  record(error: unknown, route: string | undefined): void {
    const now = this.now();
    if (this.#lastAt !== undefined && now - this.#lastAt < unavailableLogIntervalMs) {
      this.#leftOut += 1;
      return;
    }
    this.log.warn({ reason: reasonOf(error), route, leftOut: this.#leftOut }, this.message);
    this.#lastAt = now;
    this.#leftOut = 0;
  }
}

/** The error's message and its causes', in one line. */
function reasonOf(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    parts.push(current.message);
    current = current.cause;
  }
  return parts.join(': ');
}
