import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The PostgreSQL that integration tests use unless `CREWD_TEST_DATABASE_URL` names another. */
export const defaultTestDatabaseUrl = 'postgres://postgres@127.0.0.1:5432/test';

export interface PostgresAvailability {
  readonly url: string;
  readonly reachable: boolean;
  /** Why it is not reachable. */
  readonly reason?: string;
}

export function testDatabaseUrl(): string {
  return process.env.CREWD_TEST_DATABASE_URL ?? defaultTestDatabaseUrl;
}

/**
 * An unreachable PostgreSQL fails the suites that need it, so a green run has always run them; on a machine without
 * PostgreSQL, `CREWD_SKIP_POSTGRES=1` skips them instead, with the reason in their names.
 */
export function postgresRequired(): boolean {
  return process.env.CREWD_SKIP_POSTGRES !== '1';
}

/** Whether the test database answers a query within a few seconds. */
export async function postgresAvailability(): Promise<PostgresAvailability> {
  const url = testDatabaseUrl();
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return { url, reachable: true };
  } catch (error) {
    const detail = error instanceof Error ? error.message || error.name : String(error);
    return {
      url,
      reachable: false,
      reason: `PostgreSQL at ${withoutPassword(url)} is unreachable: ${detail}`,
    };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Creates a fresh schema `crewd_test_<random>` and returns its name. */
export async function createTestSchema(url: string = testDatabaseUrl()): Promise<string> {
  const schema = `crewd_test_${randomBytes(6).toString('hex')}`;
  await withClient(url, (client) => client.query(`CREATE SCHEMA ${schema}`));
  return schema;
}

/** Drops the schema and everything in it; a schema already gone is fine. */
export async function dropTestSchema(schema: string, url: string = testDatabaseUrl()): Promise<void> {
  if (!/^crewd_test_[a-z0-9_]+$/.test(schema)) throw new Error(`Refusing to drop schema ${schema}`);
  await withClient(url, (client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
}

async function withClient(url: string, work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the configured URL';
  }
}
