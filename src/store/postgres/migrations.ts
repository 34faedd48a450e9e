import type pg from 'pg';
import type { Migration } from '../migration.ts';
import { toStoreError } from './postgres-errors.ts';

/**
 * The PostgreSQL schema, oldest first. JSON columns are `json`, not `jsonb`, so documents keep their key order and
 * read back exactly as with SQLite.
 */
export const postgresMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    sql: `
      CREATE TABLE executions (
        id text PRIMARY KEY,
        state text NOT NULL
          CHECK (state IN ('PENDING', 'RUNNING', 'PAUSED', 'SUCCESS', 'FAILED', 'REVOKED')),
        inputs json NOT NULL,
        meta json,
        webhooks json NOT NULL,
        owner_token_id text NOT NULL,
        owner_user_id text,
        idempotency_key text,
        request_hash text,
        outputs json NOT NULL DEFAULT '[]',
        feedback json NOT NULL DEFAULT '[]',
        pending json,
        current_task text,
        last_step json,
        usage json NOT NULL,
        result text,
        result_json json,
        error text,
        last_event_sequence integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        started_at timestamptz,
        finished_at timestamptz
      );
      CREATE UNIQUE INDEX executions_idempotency ON executions (owner_token_id, idempotency_key);
      CREATE INDEX executions_created ON executions (created_at, id);
      CREATE INDEX executions_state_created ON executions (state, created_at, id);
      CREATE INDEX executions_user_created ON executions (owner_user_id, created_at, id);

      CREATE TABLE execution_events (
        execution_id text NOT NULL REFERENCES executions (id) ON DELETE CASCADE,
        sequence integer NOT NULL,
        type text NOT NULL,
        data json NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (execution_id, sequence)
      );

      CREATE TABLE tokens (
        id text PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('org', 'user')),
        user_id text,
        name text,
        hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL,
        revoked_at timestamptz
      );

      CREATE TABLE outbox_messages (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id text NOT NULL UNIQUE,
        execution_id text NOT NULL REFERENCES executions (id) ON DELETE CASCADE,
        kind text NOT NULL,
        url text NOT NULL,
        payload json NOT NULL,
        headers json NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        lease_until timestamptz,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX outbox_pending_pair ON outbox_messages (execution_id, url, seq) WHERE status = 'pending';
      CREATE INDEX outbox_pending_due ON outbox_messages (next_attempt_at, seq) WHERE status = 'pending';
      CREATE INDEX outbox_execution ON outbox_messages (execution_id, seq);
      CREATE INDEX outbox_failed ON outbox_messages (status) WHERE status = 'failed';

      CREATE TABLE delivery_attempts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        message_id text NOT NULL REFERENCES outbox_messages (id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        at timestamptz NOT NULL,
        status_code integer,
        error text,
        duration_ms double precision NOT NULL
      );
      CREATE INDEX delivery_attempts_message ON delivery_attempts (message_id, id);
    `,
  },
  {
    version: 2,
    name: 'execution revision',
    sql: `ALTER TABLE executions ADD COLUMN revision bigint NOT NULL DEFAULT 0;`,
  },
  {
    version: 3,
    name: 'execution leases',
    sql: `
      ALTER TABLE executions ADD COLUMN lease_owner text;
      ALTER TABLE executions ADD COLUMN lease_until timestamptz;
    `,
  },
  {
    version: 4,
    name: 'outbox lease owner',
    sql: `ALTER TABLE outbox_messages ADD COLUMN lease_owner text;`,
  },
  {
    version: 5,
    name: 'crews of executions and tokens',
    // NULL crew: an execution from before several crews were served, taken by the first crew served.
    // NULL crews on a token: every crew. A deploy token only deploys.
    sql: `
      ALTER TABLE executions ADD COLUMN crew text;
      ALTER TABLE executions ADD COLUMN crew_version integer;
      CREATE INDEX executions_crew_created ON executions (crew, created_at, id);
      ALTER TABLE tokens ADD COLUMN crews json;
      ALTER TABLE tokens ADD COLUMN deploy boolean NOT NULL DEFAULT false;
    `,
  },
  {
    version: 6,
    name: 'crew versions',
    // A version is a crew's files as they were when deployed; served_crews says which one new kickoffs use, and
    // which was deployed last from the crew's files (a rollback serves another until the files change).
    sql: `
      CREATE TABLE crew_versions (
        crew text NOT NULL,
        version integer NOT NULL,
        hash text NOT NULL,
        files json NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (crew, version)
      );
      CREATE UNIQUE INDEX crew_versions_hash ON crew_versions (crew, hash);
      CREATE INDEX executions_crew_version ON executions (crew, crew_version);
      CREATE TABLE served_crews (
        crew text PRIMARY KEY,
        version integer NOT NULL,
        deployed_version integer NOT NULL,
        updated_at timestamptz NOT NULL
      );
    `,
  },
  {
    version: 7,
    name: 'executions by token',
    // A token's waiting executions (its queue limit) and the start of its latest one (whose turn it is).
    sql: `
      CREATE INDEX executions_token_state ON executions (owner_token_id, state);
      CREATE INDEX executions_token_started ON executions (owner_token_id, started_at);
    `,
  },
  {
    version: 8,
    name: 'review deadlines',
    // pending_deadline is set with the pending review and cleared with it, so the index holds just the reviews
    // waiting on a deadline; review_deadline is a kickoff's own deadline for all its reviews.
    sql: `
      ALTER TABLE executions ADD COLUMN pending_deadline timestamptz;
      ALTER TABLE executions ADD COLUMN review_deadline json;
      CREATE INDEX executions_pending_deadline ON executions (pending_deadline) WHERE pending_deadline IS NOT NULL;
    `,
  },
  {
    version: 10,
    name: 'schedules and triggers',
    sql: `
      CREATE TABLE schedules (
        id text PRIMARY KEY,
        crew text NOT NULL,
        name text,
        cron text NOT NULL,
        timezone text NOT NULL,
        inputs text NOT NULL,
        meta text,
        webhooks text NOT NULL,
        paused integer NOT NULL,
        owner_token_id text NOT NULL,
        owner_kind text NOT NULL,
        owner_user_id text,
        created_at timestamptz NOT NULL,
        last_due_at timestamptz
      );
      CREATE INDEX schedules_crew ON schedules (crew, created_at);
      CREATE TABLE triggers (
        name text PRIMARY KEY,
        crew text,
        secret text NOT NULL,
        inputs text NOT NULL,
        created_at timestamptz NOT NULL
      );
    `,
  },
  {
    version: 11,
    name: 'flow journals',
    // A flow execution's journal: each completed method with the run's bookkeeping, appended as the flow goes.
    sql: `ALTER TABLE executions ADD COLUMN flow_journal json NOT NULL DEFAULT '[]';`,
  },
  {
    version: 12,
    name: 'execution budgets',
    // What an execution may spend before it pauses for approval; fixed at kickoff, extended by approvals counted
    // from its feedback.
    // daily_budget: what a token's executions may spend together in a day (UTC).
    sql: `
      ALTER TABLE executions ADD COLUMN budget json;
      ALTER TABLE tokens ADD COLUMN daily_budget json;
    `,
  },
  {
    version: 13,
    name: 'flow state ids',
    // A flow execution's state id, by which a later kickoff restores its state (flow-level `persist`), and the
    // state id its own run restores from. The index finds a crew's latest execution of a state id.
    sql: `
      ALTER TABLE executions ADD COLUMN flow_state_id text;
      ALTER TABLE executions ADD COLUMN restore_state_from text;
      CREATE INDEX executions_flow_state ON executions (crew, flow_state_id, created_at, id)
        WHERE flow_state_id IS NOT NULL;
    `,
  },
];

/**
 * Applies the migrations not yet recorded, in one transaction under an advisory lock per schema: a second process
 * waits for the first, then finds nothing left to do.
 */
export async function migratePostgres(
  pool: pg.Pool,
  migrations: readonly Migration[] = postgresMigrations,
): Promise<void> {
  const client = await pool.connect().catch((error: unknown) => {
    throw toStoreError(error);
  });
  // A client whose rollback failed is broken and must not return to the pool.
  let broken = false;
  try {
    await client.query('BEGIN');
    await client.query("SELECT pg_advisory_xact_lock(hashtext('crewd migrations ' || current_schema()))");
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((row) => row.version));
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (applied.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw toStoreError(error);
  } finally {
    client.release(broken);
  }
}
