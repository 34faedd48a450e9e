import type { SqliteStoreOptions } from './store/sqlite/sqlite-store.ts';
import type { Store } from './store/store.ts';

/**
 * The store a database location names: a postgres:// URL, or else a SQLite file path. Each adapter is loaded
 * only when used, so a SQLite user never loads the PostgreSQL driver.
 */
export interface OpenStoreOptions extends SqliteStoreOptions {
  /** This process's name on leases, its liveness lock and (PostgreSQL) its notices; a fresh one unless given. */
  readonly processId?: string;
}

export async function openStore(database: string, options: OpenStoreOptions = {}): Promise<Store> {
  if (/^postgres(ql)?:\/\//.test(database)) {
    const { openPostgresStore } = await import('./store/postgres/postgres-store.ts');
    return openPostgresStore(database, {
      ...(options.processId === undefined ? {} : { processId: options.processId }),
      ...(options.onError === undefined ? {} : { onError: options.onError }),
    });
  }
  const { openSqliteStore } = await import('./store/sqlite/sqlite-store.ts');
  return openSqliteStore(database, options);
}
