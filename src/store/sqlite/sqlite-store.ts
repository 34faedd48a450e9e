import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { CrewdError } from '../../domain/errors.ts';
import type { Store } from '../store.ts';
import { spawnCheckpointWorker } from './checkpoint-worker.ts';
import { applyConnectionSettings } from './connection-settings.ts';
import { migrateSqlite } from './migrations.ts';
import { createSqliteContext, settle, type SqliteContext } from './sqlite-context.ts';
import { sqliteExecutionStore } from './sqlite-execution-store.ts';
import { sqliteOutboxStore } from './sqlite-outbox-store.ts';
import { sqliteRetentionStore } from './sqlite-retention-store.ts';
import { sqliteTokenStore } from './sqlite-token-store.ts';
import { superviseCheckpointWorker, type WalCheckpointer } from './wal-checkpointer.ts';

/** How long a write waits for another process's transaction before giving up. */
const busyTimeoutMs = 5_000;

/** How often a file database's WAL is checkpointed, off the main thread. */
const checkpointIntervalMs = 50;

export interface SqliteStoreOptions {
  /** Hears of failures in background work; the store keeps working. */
  readonly onError?: (error: Error) => void;
}

/**
 * Opens (creating it and its directory when missing) the embedded SQLite store at `path`. Call `migrate()` before
 * use. Several processes may share the file: WAL lets readers run beside the one writer.
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Promise<Store> {
  return settle(() => {
    let db: Database.Database;
    try {
      if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
      db = new Database(path, { timeout: busyTimeoutMs });
      db.pragma('journal_mode = WAL');
    } catch (error) {
      // Named for the operator who configured it: this happens at start-up, never in answer to a client.
      throw new CrewdError('CONFIG_INVALID', `Cannot open the SQLite database at ${path}`, { cause: error });
    }
    applyConnectionSettings(db);
    const checkpointer = path === ':memory:' ? undefined : startCheckpointer(db, path, options);
    const context = createSqliteContext(db);
    return {
      ...sqliteExecutionStore(context),
      ...sqliteTokenStore(context),
      ...sqliteOutboxStore(context),
      ...sqliteRetentionStore(context),
      migrate: async () => {
        await settle(() => migrateSqlite(db));
        await context.log.sync();
      },
      ping: async () => {
        await settle(() => context.statement('SELECT 1').get());
        // Reads go on when the disk is full or read-only: after a write failed so, only a write shows it is over.
        if (context.outage() !== undefined) await context.writes.write(() => probeWrite(context));
      },
      close: async () => {
        await checkpointer?.stop();
        await context.writes.flush();
        await context.log.close();
        await settle(() => db.close());
      },
    };
  });
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
