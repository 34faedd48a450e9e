import { StoreUnavailableError } from '../store-unavailable.ts';

// Socket errors from Node, and SQLSTATEs for a server that is going away or refusing connections.
const connectionErrorCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

// pg reports a dropped connection or a pool that could not connect in time without a code.
const connectionErrorMessages =
  /Connection terminated|timeout exceeded when trying to connect|not queryable/i;

/** True when the database could not be reached, as opposed to a statement it rejected. */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (connectionErrorCodes.has(code) || code.startsWith('08'))) return true;
  return error instanceof Error && connectionErrorMessages.test(error.message);
}

/** An unreachable database becomes a retryable `DEPENDENCY_UNAVAILABLE` (503); other errors pass unchanged. */
export function toStoreError(error: unknown): unknown {
  return isConnectionError(error) ? new StoreUnavailableError('unreachable', error) : error;
}
