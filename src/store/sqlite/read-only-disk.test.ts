import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../store-unavailable.ts';
import { readOnlyDiskOrSame } from './read-only-disk.ts';

const ioError = (): StoreUnavailableError =>
  new StoreUnavailableError(
    'io-error',
    Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' }),
  );

// A disk turned read-only is met in test/e2e/sqlite-disk-outage.test.ts, on a real one.
describe('readOnlyDiskOrSame', () => {
  it('keeps an I/O error when the log can be opened for writing: the disk is failing, not read-only', () => {
    const log = join(mkdtempSync(join(tmpdir(), 'crewd-read-only-')), 'crewd.db-wal');
    writeFileSync(log, '');
    const error = ioError();
    expect(readOnlyDiskOrSame(error, log)).toBe(error);
  });

  it('keeps an I/O error when there is no log to try', () => {
    const error = ioError();
    expect(readOnlyDiskOrSame(error, join(tmpdir(), 'crewd-no-such-dir', 'crewd.db-wal'))).toBe(error);
  });

  it('passes other outages on unchanged', () => {
    const full = new StoreUnavailableError('disk-full', new Error('database or disk is full'));
    expect(readOnlyDiskOrSame(full, '/proc/version')).toBe(full);
  });
});
