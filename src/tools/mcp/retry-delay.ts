/** How long to wait between reconnection attempts: doubling from `initialMs`, never more than `maxMs`. */
export interface Backoff {
  readonly initialMs: number;
  readonly maxMs: number;
}

export const defaultBackoff: Backoff = { initialMs: 250, maxMs: 30_000 };

/** The wait before the next attempt after `failures` attempts in a row have failed (0 for the first retry). */
export function retryDelayMs(failures: number, backoff: Backoff): number {
  // The exponent is capped so a server down for days does not overflow into Infinity.
  return Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.min(failures, 30));
}
