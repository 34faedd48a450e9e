import { describe, expect, it } from 'vitest';
import { postgresRequired, testDatabaseUrl } from '../support/postgres.ts';
import { exampleCrew, runCrewd } from './crewd-command.ts';

/** The test database's URL with its user, or its database name, changed. */
function variant(change: (url: URL) => void): string {
  const url = new URL(testDatabaseUrl());
  change(url);
  return url.toString();
}

describe.runIf(postgresRequired())('crewd serve with a PostgreSQL URL that cannot work', () => {
  it('says to write a user when the URL names none', async () => {
    const database = variant((url) => {
      url.username = '';
      url.password = '';
    });

    const result = await runCrewd(['serve', exampleCrew, '--port', '0', '--database', database]);

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'crewd: The PostgreSQL URL names no user; write one, as in postgres://<user>:<password>@<host>:5432/<database>\n',
    );
  });

  it('says how to create a database that does not exist', async () => {
    const database = variant((url) => {
      url.pathname = '/crewd_no_such_database';
    });

    const result = await runCrewd(['serve', exampleCrew, '--port', '0', '--database', database]);

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^crewd: The PostgreSQL database "crewd_no_such_database" does not exist; create it \(createdb crewd_no_such_database, or CREATE DATABASE "crewd_no_such_database"; in psql\)/,
    );
  });
});
