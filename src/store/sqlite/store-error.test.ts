import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../store-unavailable.ts';
import { storeError } from './store-error.ts';

const withCode = (code: string): Error => Object.assign(new Error(`driver says ${code}`), { code });

describe('storeError (SQLite)', () => {
  it.each([
    ['SQLITE_BUSY', 'busy'],
    ['SQLITE_LOCKED', 'busy'],
    ['SQLITE_FULL', 'disk-full'],
    ['ENOSPC', 'disk-full'],
    ['SQLITE_READONLY', 'read-only'],
    ['SQLITE_READONLY_DBMOVED', 'read-only'],
    ['EROFS', 'read-only'],
    ['SQLITE_IOERR_WRITE', 'io-error'],
    ['EIO', 'io-error'],
  ])('takes %s for an outage: %s', (code, reason) => {
    const error = storeError(withCode(code));
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as StoreUnavailableError).reason).toBe(reason);
    expect((error as StoreUnavailableError).retryable).toBe(true);
    expect((error as StoreUnavailableError).message).not.toContain('driver says');
  });

  it('passes statement errors on unchanged', () => {
    const constraint = withCode('SQLITE_CONSTRAINT_UNIQUE');
    expect(storeError(constraint)).toBe(constraint);
  });
});
