import { sqliteScheduleStore } from './sqlite-schedule-store.ts';
import { randomUUID } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { CrewdError } from '../../domain/errors.ts';
import { createOwnerOnlyFileSync, makeOwnerOnlyDirectorySync } from '../../system/owner-only.ts';
import type { Store } from '../store.ts';
import { spawnCheckpointWorker } from './checkpoint-worker.ts';
import { statfs } from 'node:fs/promises';
import { isStoreUnavailable, StoreUnavailableError } from '../store-unavailable.ts';
import { applyConnectionSettings } from './connection-settings.ts';
import { migrateSqlite } from './migrations.ts';
import { processLocks } from './process-locks.ts';
import { sqliteCoordinationFeed } from './sqlite-coordination-feed.ts';
import { createSqliteContext, settle, type SqliteContext } from './sqlite-context.ts';
import { sqliteExecutionStore } from './sqlite-execution-store.ts';
import { sqliteOutboxStore } from './sqlite-outbox-store.ts';
import { sqliteRetentionStore } from './sqlite-retention-store.ts';
import { storeError } from './store-error.ts';
import { sqliteTokenStore } from './sqlite-token-store.ts';
import { sqliteCrewVersionStore } from './sqlite-crew-version-store.ts';
import { superviseCheckpointWorker, type WalCheckpointer } from './wal-checkpointer.ts';

/** How long a write waits for another process's transaction before giving up. */
const busyTimeoutMs = 5_000;

/** How often a file database's WAL is checkpointed, off the main thread. */
const checkpointIntervalMs = 50;

export interface SqliteStoreOptions {
  /** This process's name on leases and its liveness lock file (a fresh one unless given). */
  readonly processId?: string;
  /** Hears of failures in background work; the store keeps working. */
  readonly onError?: (error: Error) => void;
}

/**
 * Opens (creating it and its directory when missing) the embedded SQLite store at `path`. Call `migrate()` before
 * use. Several processes on one machine may share the file: WAL lets readers run beside the one writer, and each
 * process's liveness lock (held by its feed) tells the others when it is gone.
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Promise<Store> {
  return settle(() => {
    let db: Database.Database;
    try {
      if (path !== ':memory:') {
        // It holds webhook credentials and feedback: its owner's alone, and so are the WAL and shared memory files
        // SQLite makes beside it with its mode.
        makeOwnerOnlyDirectorySync(dirname(path));
        createOwnerOnlyFileSync(path);
      }
      db = new Database(path, { timeout: busyTimeoutMs });
      db.pragma('journal_mode = WAL');
    } catch (error) {
      throw openError(error, path);
    }
    applyConnectionSettings(db);
    const checkpointer = path === ':memory:' ? undefined : startCheckpointer(db, path, options);
    const context = createSqliteContext(db);
    const processId = options.processId ?? randomUUID();
    const locks = processLocks(path);
    const feed = sqliteCoordinationFeed(locks, processId);
    return {
      ...sqliteExecutionStore(context, locks),
      ...sqliteTokenStore(context),
      ...sqliteCrewVersionStore(context),
      ...sqliteScheduleStore(context),
      ...sqliteOutboxStore(context, processId, locks),
      feed,
      ...sqliteRetentionStore(context),
      migrate: async () => {
        await settle(() => migrateSqlite(db)).catch((error: unknown) => {
          throw isDamaged(error) ? openError(error, path) : error;
        });
        await context.log.sync();
      },
      ping: async () => {
        await settle(() => context.statement('SELECT 1').get());
        // Reads go on when the disk is full or read-only. A disk with almost no space left is full whatever a
        // small write would do; after a write failed, only a write shows the outage is over.
        if (path !== ':memory:') await checkFreeSpace(path);
        if (context.outage() !== undefined) await context.writes.write(() => probeWrite(context));
      },
      close: async () => {
        try {
          await checkpointer?.stop();
          await context.writes.flush();
          await context.log.close();
          await settle(() => db.close());
        } finally {
          // Last, so no write of this process lands after others may take its leases.
          await feed.close();
        }
      },
    };
  });
}

/** A file SQLite cannot read as a database, at start-up. */
function isDamaged(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_NOTADB' || (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT'));
}

/** Named for the operator who configured it: this happens at start-up, never in answer to a client. */
function openError(error: unknown, path: string): CrewdError {
  const code = (error as { code?: unknown } | null)?.code;
  const what =
    code === 'SQLITE_NOTADB'
      ? ': the file is not a SQLite database (or its header is damaged)'
      : isDamaged(error)
        ? ': the file is damaged (SQLITE_CORRUPT); restore it from a backup, or recover what is left with ' +
          '`sqlite3 <file> .recover`'
        : code === 'SQLITE_CANTOPEN'
          ? directoryProblem(path)
          : outageOf(error);
  return new CrewdError('CONFIG_INVALID', `Cannot open the SQLite database at ${path}${what}`, {
    cause: error,
  });
}

/** Why SQLite could not open a file in this directory, when the directory itself says. */
function directoryProblem(path: string): string {
  try {
    accessSync(dirname(path), constants.W_OK);
    return '';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EROFS') return ": the database's disk is read-only";
    if (code === 'EACCES') return ': crewd may not write in its directory';
    return '';
  }
}

/** A disk that is full, read-only or failing, in the words of `StoreUnavailableError`. */
function outageOf(error: unknown): string {
  const outage = storeError(error);
  return isStoreUnavailable(outage) ? `: ${outage.message.replace(/^The /, 'the ')}` : '';
}

/** Less free space than this on the database's disk counts as full: a commit and its log need room. */
const minimumFreeBytes = 1024 * 1024;

async function checkFreeSpace(path: string): Promise<void> {
  const disk = await statfs(dirname(path)).catch(() => undefined);
  if (disk !== undefined && disk.bavail * disk.bsize < minimumFreeBytes) {
    throw new StoreUnavailableError('disk-full', new Error(`${disk.bavail * disk.bsize} bytes free`));
  }
}

/** Rewrites one row as it is: a real write to the file, which fails while the disk is full or read-only. */
function probeWrite(context: SqliteContext): void {
  context
    .statement(
      'UPDATE schema_migrations SET applied_at = applied_at WHERE version = (SELECT max(version) FROM schema_migrations)',
    )
    .run();
}

function startCheckpointer(
  db: Database.Database,
  path: string,
  options: SqliteStoreOptions,
): WalCheckpointer {
  const worker = spawnCheckpointWorker(path, { intervalMs: checkpointIntervalMs, busyTimeoutMs });
  return superviseCheckpointWorker(db, worker, options.onError ?? (() => {}));
}
