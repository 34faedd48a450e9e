/** The error, its causes and, for a connection tried on several addresses, each address's error. */
export function errorChain(error: unknown, depth = 0): unknown[] {
  if (error === undefined || error === null || depth > 4) return [];
  const nested =
    error instanceof AggregateError
      ? error.errors.flatMap((item: unknown) => errorChain(item, depth + 1))
      : [];
  const cause = error instanceof Error ? errorChain(error.cause, depth + 1) : [];
  return [error, ...cause, ...nested];
}

/** A Node.js error's `code` (`ECONNREFUSED`, `UND_ERR_CONNECT_TIMEOUT`, …), when it has one. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}
