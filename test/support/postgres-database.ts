import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { testDatabaseUrl } from './postgres.ts';

/** A fresh PostgreSQL database beside the test one, so a whole crewd server can own it (tests and benchmarks). */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `crewd_e2e_${randomBytes(6).toString('hex')}`;
  const admin = testDatabaseUrl();
  await run(admin, `CREATE DATABASE ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => run(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function run(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
