import { StoreUnavailableError, type StoreUnavailableReason } from '../store-unavailable.ts';

/**
 * SQLite result codes and file-system errors (from flushing the log) that mean the database cannot be used for now
 * rather than that a statement was wrong: another process holding it past the busy timeout, a full disk, a disk
 * mounted read-only, a failing disk. Each becomes a retryable `StoreUnavailableError`; other errors pass unchanged.
 */
export function storeError(error: unknown): unknown {
  const reason = unavailableReason(error);
  return reason === undefined ? error : new StoreUnavailableError(reason, error);
}

function unavailableReason(error: unknown): StoreUnavailableReason | undefined {
  if (error instanceof StoreUnavailableError) return undefined;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code.startsWith('SQLITE_BUSY_')) return 'busy';
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return 'disk-full';
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS') return 'read-only';
  if (code.startsWith('SQLITE_IOERR') || code === 'SQLITE_CANTOPEN' || code === 'EIO') return 'io-error';
  return undefined;
}
