import type { SqliteStoreOptions } from './store/sqlite/sqlite-store.ts';
import type { Store } from './store/store.ts';

/**
 * The store a database location names: a postgres:// URL, or else a SQLite file path. Each adapter is loaded
 * only when used, so a SQLite user never loads the PostgreSQL driver.
 */
export async function openStore(database: string, options: SqliteStoreOptions = {}): Promise<Store> {
  if (/^postgres(ql)?:\/\//.test(database)) {
    const { openPostgresStore } = await import('./store/postgres/postgres-store.ts');
    return openPostgresStore(database);
  }
  const { openSqliteStore } = await import('./store/sqlite/sqlite-store.ts');
  return openSqliteStore(database, options);
}
