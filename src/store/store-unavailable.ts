import { CrewdError } from '../domain/errors.ts';

/**
 * Why the store cannot be used right now: each is an outage of the database, never a fault of the request or the
 * execution that met it, and each ends without crewd's help (the server comes back, a lock is let go, space is freed).
 */
export type StoreUnavailableReason = 'unreachable' | 'busy' | 'disk-full' | 'read-only' | 'io-error';

export const storeUnavailableReasons: readonly StoreUnavailableReason[] = [
  'unreachable',
  'busy',
  'disk-full',
  'read-only',
  'io-error',
];

/** What each reason means to an operator or a client: no address, path or driver text. */
const explanations: Record<StoreUnavailableReason, string> = {
  unreachable: 'The database cannot be reached',
  busy: 'The database is busy',
  'disk-full': "The database's disk is full",
  'read-only': "The database's disk is read-only",
  'io-error': "The database's disk reports input/output errors",
};

/** The store cannot be used for now (503, retryable). `reason` is safe to show; the cause is for the log. */
export class StoreUnavailableError extends CrewdError {
  readonly reason: StoreUnavailableReason;

  constructor(reason: StoreUnavailableReason, cause: unknown) {
    super('DEPENDENCY_UNAVAILABLE', explanations[reason], { retryable: true, cause });
    this.name = 'StoreUnavailableError';
    this.reason = reason;
  }
}

export function isStoreUnavailable(error: unknown): error is StoreUnavailableError {
  return error instanceof StoreUnavailableError;
}
