import { CrewdError } from '../../domain/errors.ts';

/** A database locked by another process past the busy timeout becomes a retryable dependency failure. */
export function storeError(error: unknown): unknown {
  if (!isBusy(error)) return error;
  return new CrewdError('DEPENDENCY_UNAVAILABLE', 'The database is busy', { retryable: true, cause: error });
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}
