import { tempDatabase } from './crewd.ts';
import { createTestDatabase } from './postgres-database.ts';

/**
 * The two stores a test runs on, for `describe.each(stores.cases)`: each case makes a new database and gives its
 * location (a SQLite file, a PostgreSQL URL). `dropAll` removes the PostgreSQL databases made so far.
 */
export function bothStores(): {
  readonly cases: readonly [string, () => Promise<string>][];
  dropAll(): Promise<void>;
} {
  const dropped: (() => Promise<void>)[] = [];
  return {
    cases: [
      ['SQLite', () => Promise.resolve(tempDatabase())],
      [
        'PostgreSQL',
        async () => {
          const created = await createTestDatabase();
          dropped.push(created.drop);
          return created.url;
        },
      ],
    ],
    async dropAll() {
      for (const drop of dropped.splice(0)) await drop();
    },
  };
}
