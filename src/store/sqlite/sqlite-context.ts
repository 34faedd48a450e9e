import type Database from 'better-sqlite3';
import type { Row, RowDecoder } from '../row-decoder.ts';
import { rowDecoder } from '../row-decoder.ts';
import { isStoreUnavailable, type StoreUnavailableError } from '../store-unavailable.ts';
import { storeError } from './store-error.ts';
import { createLogSync, type LogSync } from './log-sync.ts';
import { readOnlyDiskOrSame } from './read-only-disk.ts';
import type { WriteBatcher } from './write-batcher.ts';
import { createWriteBatcher } from './write-batcher.ts';

/** What the SQLite store's parts share: the connection, its prepared statements and the row decoder. */
export interface SqliteContext {
  readonly db: Database.Database;
  /** The statement for this SQL, prepared on first use (after migrations have created the tables). */
  readonly statement: (sql: string) => Database.Statement<unknown[], Row>;
  readonly decode: RowDecoder;
  /** Where every write goes: those of one event-loop turn share a transaction, acknowledged once on disk. */
  readonly writes: WriteBatcher;
  /** Flushes the write-ahead log off the event loop; closed with the connection. */
  readonly log: LogSync;
  /** Why the last write failed, while no write has succeeded since: the disk is full, read-only or failing. */
  readonly outage: () => StoreUnavailableError | undefined;
}

export function createSqliteContext(db: Database.Database): SqliteContext {
  const statements = new Map<string, Database.Statement<unknown[], Row>>();
  const log = createLogSync(db);
  const batcher = createWriteBatcher(db, () => log.sync());
  let outage: StoreUnavailableError | undefined;
  const writes: WriteBatcher = {
    write: (work) =>
      batcher.write(work).then(
        (value) => {
          outage = undefined;
          return value;
        },
        (error: unknown) => {
          if (!isStoreUnavailable(error)) throw error;
          const unavailable = db.memory ? error : readOnlyDiskOrSame(error, `${db.name}-wal`);
          if (unavailable.reason !== 'busy') outage = unavailable;
          throw unavailable;
        },
      ),
    flush: () => batcher.flush(),
  };
  return {
    db,
    statement: (sql) => {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = db.prepare<unknown[], Row>(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
    writes,
    log,
    outage: () => outage,
    decode: rowDecoder({
      json: (value) => JSON.parse(value as string) as unknown,
      date: (value) => new Date(value as string),
    }),
  };
}

/**
 * Runs synchronous database work as a promise, so callers see the same port as with PostgreSQL. A database locked by
 * another process past the busy timeout is reported as a retryable dependency failure.
 */
export function settle<T>(work: () => T): Promise<T> {
  return new Promise((resolve) => {
    try {
      resolve(work());
    } catch (error) {
      throw storeError(error);
    }
  });
}
