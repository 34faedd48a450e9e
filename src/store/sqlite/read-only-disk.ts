import { closeSync, openSync } from 'node:fs';
import { StoreUnavailableError } from '../store-unavailable.ts';

/**
 * A disk turned read-only under files SQLite holds open (as ext4 does with `errors=remount-ro` once it meets an
 * error) refuses SQLite's writes with EROFS, but SQLite reports them as I/O errors and the driver keeps the errno to
 * itself. Opening the write-ahead log for writing tells the two apart: a read-only disk refuses that too. The log,
 * not the database file: closing a descriptor of the database file would drop the locks SQLite holds on it.
 */
export function readOnlyDiskOrSame(error: StoreUnavailableError, logPath: string): StoreUnavailableError {
  if (error.reason !== 'io-error') return error;
  try {
    closeSync(openSync(logPath, 'r+'));
    return error;
  } catch (probe) {
    if ((probe as NodeJS.ErrnoException).code !== 'EROFS') return error;
    return new StoreUnavailableError('read-only', error.cause);
  }
}
