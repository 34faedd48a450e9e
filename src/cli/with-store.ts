import { defaultDatabasePath } from '../config.ts';
import { openStore } from '../open-store.ts';
import type { Store } from '../store/store.ts';
import type { CliContext } from './cli-context.ts';
import { explainFailure } from './describe-error.ts';

/** The database a command works on: `--database`, else `CREWD_DATABASE_URL`, else the default file. */
export function commandDatabase(flag: string | undefined, context: CliContext): string {
  const fromEnv = context.env.CREWD_DATABASE_URL;
  return flag ?? (fromEnv === undefined || fromEnv === '' ? undefined : fromEnv) ?? defaultDatabasePath;
}

/** Opens the database, brings its schema up to date, runs `work` and closes it again. */
export async function withStore(database: string, work: (store: Store) => Promise<void>): Promise<void> {
  try {
    const store = await openStore(database);
    try {
      await store.migrate();
      await work(store);
    } finally {
      await store.close();
    }
  } catch (error) {
    throw explainFailure(error, { database });
  }
}
