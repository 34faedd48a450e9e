import type Database from 'better-sqlite3';
import type { Migration } from '../migration.ts';

/** The SQLite schema, oldest first. Dates are ISO-8601 UTC text, which sorts in time order; JSON is text. */
export const sqliteMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    sql: `
      CREATE TABLE executions (
        id TEXT PRIMARY KEY,
        state TEXT NOT NULL
          CHECK (state IN ('PENDING', 'RUNNING', 'PAUSED', 'SUCCESS', 'FAILED', 'REVOKED')),
        inputs TEXT NOT NULL,
        meta TEXT,
        webhooks TEXT NOT NULL,
        owner_token_id TEXT NOT NULL,
        owner_user_id TEXT,
        idempotency_key TEXT,
        request_hash TEXT,
        outputs TEXT NOT NULL DEFAULT '[]',
        feedback TEXT NOT NULL DEFAULT '[]',
        pending TEXT,
        current_task TEXT,
        last_step TEXT,
        usage TEXT NOT NULL,
        result TEXT,
        result_json TEXT,
        error TEXT,
        last_event_sequence INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        started_at TEXT,
        finished_at TEXT
      ) STRICT;
      CREATE UNIQUE INDEX executions_idempotency ON executions (owner_token_id, idempotency_key);
      CREATE INDEX executions_created ON executions (created_at, id);
      CREATE INDEX executions_state_created ON executions (state, created_at, id);
      CREATE INDEX executions_user_created ON executions (owner_user_id, created_at, id);

      CREATE TABLE execution_events (
        execution_id TEXT NOT NULL REFERENCES executions (id) ON DELETE CASCADE,
        sequence INTEGER NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (execution_id, sequence)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE tokens (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('org', 'user')),
        user_id TEXT,
        name TEXT,
        hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      ) STRICT;

      CREATE TABLE outbox_messages (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        execution_id TEXT NOT NULL REFERENCES executions (id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        url TEXT NOT NULL,
        payload TEXT NOT NULL,
        headers TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TEXT NOT NULL,
        lease_until TEXT,
        created_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX outbox_pending_pair ON outbox_messages (execution_id, url, seq) WHERE status = 'pending';
      CREATE INDEX outbox_pending_due ON outbox_messages (next_attempt_at, seq) WHERE status = 'pending';
      CREATE INDEX outbox_execution ON outbox_messages (execution_id, seq);
      CREATE INDEX outbox_failed ON outbox_messages (status) WHERE status = 'failed';

      CREATE TABLE delivery_attempts (
        id INTEGER PRIMARY KEY,
        message_id TEXT NOT NULL REFERENCES outbox_messages (id) ON DELETE CASCADE,
        attempt INTEGER NOT NULL,
        at TEXT NOT NULL,
        status_code INTEGER,
        error TEXT,
        duration_ms REAL NOT NULL
      ) STRICT;
      CREATE INDEX delivery_attempts_message ON delivery_attempts (message_id, id);
    `,
  },
  {
    version: 2,
    name: 'execution revision',
    sql: `ALTER TABLE executions ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;`,
  },
  {
    version: 3,
    name: 'execution leases',
    sql: `
      ALTER TABLE executions ADD COLUMN lease_owner TEXT;
      ALTER TABLE executions ADD COLUMN lease_until TEXT;
    `,
  },
  {
    version: 4,
    name: 'outbox lease owner',
    sql: `ALTER TABLE outbox_messages ADD COLUMN lease_owner TEXT;`,
  },
  {
    version: 5,
    name: 'crews of executions and tokens',
    // NULL crew: an execution from before several crews were served, taken by the first crew served.
    // NULL crews on a token: every crew. A deploy token only deploys.
    sql: `
      ALTER TABLE executions ADD COLUMN crew TEXT;
      ALTER TABLE executions ADD COLUMN crew_version INTEGER;
      CREATE INDEX executions_crew_created ON executions (crew, created_at, id);
      ALTER TABLE tokens ADD COLUMN crews TEXT;
      ALTER TABLE tokens ADD COLUMN deploy INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 6,
    name: 'crew versions',
    // A version is a crew's files as they were when deployed; served_crews says which one new kickoffs use, and
    // which was deployed last from the crew's files (a rollback serves another until the files change).
    sql: `
      CREATE TABLE crew_versions (
        crew TEXT NOT NULL,
        version INTEGER NOT NULL,
        hash TEXT NOT NULL,
        files TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (crew, version)
      ) STRICT;
      CREATE UNIQUE INDEX crew_versions_hash ON crew_versions (crew, hash);
      CREATE INDEX executions_crew_version ON executions (crew, crew_version);
      CREATE TABLE served_crews (
        crew TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        deployed_version INTEGER NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;
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
      ALTER TABLE executions ADD COLUMN pending_deadline TEXT;
      ALTER TABLE executions ADD COLUMN review_deadline TEXT;
      CREATE INDEX executions_pending_deadline ON executions (pending_deadline) WHERE pending_deadline IS NOT NULL;
    `,
  },
  {
    version: 10,
    name: 'schedules and triggers',
    sql: `
      CREATE TABLE schedules (
        id TEXT PRIMARY KEY,
        crew TEXT NOT NULL,
        name TEXT,
        cron TEXT NOT NULL,
        timezone TEXT NOT NULL,
        inputs TEXT NOT NULL,
        meta TEXT,
        webhooks TEXT NOT NULL,
        paused INTEGER NOT NULL,
        owner_token_id TEXT NOT NULL,
        owner_kind TEXT NOT NULL,
        owner_user_id TEXT,
        created_at TEXT NOT NULL,
        last_due_at TEXT
      ) STRICT;
      CREATE INDEX schedules_crew ON schedules (crew, created_at);
      CREATE TABLE triggers (
        name TEXT PRIMARY KEY,
        crew TEXT,
        secret TEXT NOT NULL,
        inputs TEXT NOT NULL,
        created_at TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 11,
    name: 'flow journals',
    // A flow execution's journal: each completed method with the run's bookkeeping, appended as the flow goes.
    sql: `ALTER TABLE executions ADD COLUMN flow_journal TEXT NOT NULL DEFAULT '[]';`,
  },
  {
    version: 12,
    name: 'execution budgets',
    // What an execution may spend before it pauses for approval; fixed at kickoff, extended by approvals counted
    // from its feedback.
    // daily_budget: what a token's executions may spend together in a day (UTC).
    sql: `
      ALTER TABLE executions ADD COLUMN budget TEXT;
      ALTER TABLE tokens ADD COLUMN daily_budget TEXT;
    `,
  },
  {
    version: 13,
    name: 'flow state ids',
    // A flow execution's state id, by which a later kickoff restores its state (flow-level `persist`), and the
    // state id its own run restores from. The index finds a crew's latest execution of a state id.
    sql: `
      ALTER TABLE executions ADD COLUMN flow_state_id TEXT;
      ALTER TABLE executions ADD COLUMN restore_state_from TEXT;
      CREATE INDEX executions_flow_state ON executions (crew, flow_state_id, created_at, id)
        WHERE flow_state_id IS NOT NULL;
    `,
  },
  {
    version: 14,
    name: 'events in order of arrival',
    // Events were kept in a table keyed by execution id, so each commit's events went into as many pages as it had
    // executions, scattered by their random ids, and split them as they filled: two thirds of the pages a commit
    // wrote to the log. Kept in order of arrival they share the last pages of the table, and with ids ordered by
    // time so do the entries of the (execution, sequence) index. Existing events are copied over while the server
    // starts: 1.4 million took 7 s here, and the copy passes through the write-ahead log, which needs free disk
    // about the size of the events until the next checkpoint.
    sql: `
      CREATE TABLE execution_events_by_arrival (
        execution_id TEXT NOT NULL REFERENCES executions (id) ON DELETE CASCADE,
        sequence INTEGER NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at TEXT NOT NULL
      ) STRICT;
      INSERT INTO execution_events_by_arrival (execution_id, sequence, type, data, created_at)
        SELECT execution_id, sequence, type, data, created_at FROM execution_events;
      DROP TABLE execution_events;
      ALTER TABLE execution_events_by_arrival RENAME TO execution_events;
      CREATE UNIQUE INDEX execution_events_sequence ON execution_events (execution_id, sequence);
    `,
  },
];

/** Applies the migrations not yet recorded; `BEGIN IMMEDIATE` makes a second process wait, then find none. */
export function migrateSqlite(
  db: Database.Database,
  migrations: readonly Migration[] = sqliteMigrations,
): void {
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at TEXT NOT NULL
    ) STRICT`);
    const applied = new Set(
      db
        .prepare('SELECT version FROM schema_migrations')
        .pluck()
        .all()
        .map((version) => Number(version)),
    );
    const record = db.prepare(
      "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ'))",
    );
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (applied.has(migration.version)) continue;
      db.exec(migration.sql);
      record.run(migration.version, migration.name);
    }
  }).immediate();
}
