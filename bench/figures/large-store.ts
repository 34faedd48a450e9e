// Figure 11: GET /status and GET /executions p99 with 1,000,000 executions stored, against the same with 1,000, on
// the store BENCH_STORE names (sqlite or postgres). The rows past the first are copies of a real one inserted
// straight into the database, so setting up a million takes a minute, not the hours kicking them off would.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createTestDatabase } from '../../test/support/postgres-database.ts';
import { crewDirs } from '../lib/crew-dirs.ts';
import { crewdClient } from '../lib/crewd-client.ts';
import { benchToken, profileArgs, startCrewdServer } from '../lib/crewd-server.ts';
import { startFakeModel } from '../lib/fake-model.ts';
import type { FigureRow } from '../lib/figure-row.ts';
import { runFigure } from '../lib/figure-main.ts';
import { generateLoad } from '../lib/generate-load.ts';
import { percentile } from '../lib/stats.ts';

const postgres = process.env.BENCH_STORE === 'postgres';
const figure = `11 reads with 1,000,000 executions stored, ${postgres ? 'PostgreSQL' : 'SQLite'}`;
const connections = 20;
const target = '<= 1.5x of 1,000 stored';
const readsNote = `${connections} connections; a paused execution (read from the store each time), first page of 20`;

/** The columns of a copy: a finished execution a second older than the one before, else as the template. */
function copiedValues(columns: readonly string[], olderBy: string): string[] {
  const replaced: Record<string, string> = {
    id: "'bulk-' || lpad(n.i::text, 9, '0')",
    state: "'SUCCESS'",
    pending: 'NULL',
    idempotency_key: 'NULL',
    lease_owner: 'NULL',
    lease_until: 'NULL',
    created_at: olderBy,
    updated_at: olderBy,
    finished_at: olderBy,
  };
  return columns.map((column) => replaced[column] ?? `template.${column}`);
}

/** Copies the execution `templateId` into `count` finished executions in a SQLite file. */
function insertSqliteCopies(file: string, templateId: string, count: number): void {
  const db = new Database(file);
  try {
    const columns = (db.pragma('table_info(executions)') as { name: string }[]).map((column) => column.name);
    const values = copiedValues(
      columns,
      "strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', '-' || n.i || ' seconds')",
    );
    values[columns.indexOf('id')] = "printf('bulk-%09d', n.i)";
    db.exec(`
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
      INSERT INTO executions (${columns.join(', ')})
      SELECT ${values.join(', ')} FROM n, executions AS template WHERE template.id = '${templateId}'`);
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

/** The same in PostgreSQL, then fresh planner statistics, as autovacuum would gather soon after. */
async function insertPostgresCopies(url: string, templateId: string, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ column_name: string }>(
      "SELECT column_name FROM information_schema.columns WHERE table_name = 'executions' ORDER BY ordinal_position",
    );
    const columns = rows.map((row) => row.column_name);
    const values = copiedValues(columns, "timestamptz '2025-01-01' - n.i * interval '1 second'");
    await client.query(
      `INSERT INTO executions (${columns.join(', ')})
       SELECT ${values.join(', ')} FROM generate_series(1, ${count}) AS n(i), executions AS template
       WHERE template.id = $1`,
      [templateId],
    );
    await client.query('VACUUM ANALYZE executions');
  } finally {
    await client.end();
  }
}

interface Reads {
  readonly statusP99: number;
  readonly listP99: number;
  readonly metricsP99: number;
  readonly clean: boolean;
}

/** A store with `stored` executions, one of them paused (read from the store on every status request). */
async function measure(
  stored: number,
  modelUrl: string,
  quick: boolean,
  profileDir?: string,
): Promise<Reads> {
  const directory = mkdtempSync(join(tmpdir(), 'crewd-bench-large-'));
  const scratch = postgres ? await createTestDatabase() : undefined;
  const database = scratch?.url ?? join(directory, 'crewd.db');
  try {
    const setup = await startCrewdServer({ crewDir: crewDirs.signOff, modelUrl, database });
    const setupClient = crewdClient(setup.url);
    const paused = await setupClient.kickoff({ inputs: { topic: 'tides' } });
    if ((await setupClient.waitForState(paused, ['PAUSED'])) !== 'PAUSED') throw new Error('no pause');
    await setupClient.close();
    await setup.stop();
    if (postgres) await insertPostgresCopies(database, paused, stored - 1);
    else insertSqliteCopies(database, paused, stored - 1);

    const server = await startCrewdServer({
      crewDir: crewDirs.signOff,
      modelUrl,
      database,
      nodeArgs: profileArgs(profileDir, `large-store-${stored}`),
    });
    try {
      const auth = { authorization: `Bearer ${benchToken}` };
      const durationMs = quick ? 1500 : 8_000;
      const load = (path: string, ms: number, clients = connections) =>
        generateLoad({ origin: server.url, path, headers: auth, connections: clients, durationMs: ms });
      await load(`/status/${paused}`, quick ? 300 : 1000);
      const status = await load(`/status/${paused}`, durationMs);
      await load('/executions?limit=20', quick ? 300 : 1000);
      const list = await load('/executions?limit=20', durationMs);
      // One scraper, as Prometheus is: the first scrape counts everything, the rest what the store keeps current.
      const scrapes = await load('/metrics', durationMs, 1);
      return {
        statusP99: percentile(status.latencies, 99),
        listP99: percentile(list.latencies, 99),
        metricsP99: percentile(scrapes.latencies, 99),
        clean: [status, list, scrapes].every((result) => result.errors === 0 && result.notOk === 0),
      };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
    await scratch?.drop();
  }
}

runFigure({ figure, metric: 'p99 ms', target }, async ({ quick, profileDir }) => {
  const model = await startFakeModel();
  try {
    const large = quick ? 100_000 : 1_000_000;
    const small = await measure(1_000, model.url, quick, profileDir);
    const big = await measure(large, model.url, quick, profileDir);
    const row = (metric: string, value: number, baseline: number, note = readsNote): FigureRow => ({
      figure,
      metric: `${metric} p99, ${large.toLocaleString('en')} stored`,
      unit: 'ms',
      value,
      baseline,
      baselineLabel: 'the same with 1,000 stored',
      ratio: value / baseline,
      target,
      met: big.clean && small.clean && value / baseline <= 1.5,
      note,
    });
    return [
      row('GET /status/{id}', big.statusP99, small.statusP99),
      row('GET /executions?limit=20', big.listP99, small.listP99),
      row('GET /metrics', big.metricsP99, small.metricsP99, 'one scraper, back to back'),
    ];
  } finally {
    await model.stop();
  }
});
