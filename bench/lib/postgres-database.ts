import pg from 'pg';

export interface ScratchDatabase {
  /** postgres:// URL of the fresh database. */
  readonly url: string;
  drop(): Promise<void>;
}

const adminUrl = 'postgres://postgres@127.0.0.1:5432/test';

/** Creates a fresh database beside `test` for one figure, so no run sees another's rows; `drop` removes it. */
export async function createScratchDatabase(): Promise<ScratchDatabase> {
  const name = `crewd_bench_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    url: `postgres://postgres@127.0.0.1:5432/${name}`,
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
