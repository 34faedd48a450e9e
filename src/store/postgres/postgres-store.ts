import { postgresScheduleStore } from './postgres-schedule-store.ts';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { CrewdError } from '../../domain/errors.ts';
import type { Store } from '../store.ts';
import { migratePostgres } from './migrations.ts';
import { createPostgresContext } from './postgres-context.ts';
import { isConnectionError, toStoreError } from './postgres-errors.ts';
import { postgresCoordinationFeed } from './postgres-coordination-feed.ts';
import { postgresExecutionStore } from './postgres-execution-store.ts';
import { postgresOutboxStore } from './postgres-outbox-store.ts';
import { postgresRetentionStore } from './postgres-retention-store.ts';
import { postgresTokenStore } from './postgres-token-store.ts';
import { postgresCrewVersionStore } from './postgres-crew-version-store.ts';

export interface PostgresStoreOptions {
  /** Keeps every table in this schema (created when missing), e.g. to isolate test runs. */
  readonly schema?: string;
  /** Connections held at most (default 10). */
  readonly poolSize?: number;
  /** This process's name in notices and liveness locks: its lease owner name (a fresh one unless given). */
  readonly processId?: string;
  /** Hears of failures of the change feed's connection; it keeps trying. */
  readonly onError?: (error: Error) => void;
}

const schemaName = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Opens the PostgreSQL store at `url` and checks that the database answers. Call `migrate()` before use. Any number
 * of processes may share one database.
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<Store> {
  const { schema } = options;
  if (schema !== undefined && !schemaName.test(schema)) {
    throw new CrewdError('CONFIG_INVALID', 'The PostgreSQL schema name must be a lower-case identifier');
  }
  const connection: pg.ClientConfig = {
    connectionString: url,
    connectionTimeoutMillis: 10_000,
    // Set at connection start-up, so every connection sees only this schema.
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  };
  const pool = new pg.Pool({ ...connection, max: options.poolSize ?? 10 });
  // An idle connection the server dropped is discarded by the pool; the next query reports any real outage.
  pool.on('error', () => undefined);
  try {
    await pool.query(schema === undefined ? 'SELECT 1' : `CREATE SCHEMA IF NOT EXISTS ${schema}`);
  } catch (error) {
    if (!isAlreadyCreated(error)) {
      await pool.end();
      throw openError(error, url);
    }
  }
  const context = createPostgresContext(pool);
  const processId = options.processId ?? randomUUID();
  const feed = postgresCoordinationFeed({
    connection,
    processId,
    ...(options.onError === undefined ? {} : { onError: options.onError }),
  });
  return {
    ...postgresExecutionStore(context, processId),
    ...postgresTokenStore(context),
    ...postgresCrewVersionStore(context),
    ...postgresScheduleStore(context),
    ...postgresOutboxStore(context, processId),
    feed,
    ...postgresRetentionStore(context),
    migrate: () => migratePostgres(pool),
    ping: async () => {
      await pool.query('SELECT 1').catch((error: unknown) => {
        throw toStoreError(error);
      });
    },
    close: async () => {
      await feed.close();
      await pool.end();
    },
  };
}

/** Another process creating the same schema at the same moment. */
function isAlreadyCreated(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '42P06' || code === '23505';
}

function openError(error: unknown, url: string): CrewdError {
  if (isConnectionError(error)) {
    return new CrewdError('DEPENDENCY_UNAVAILABLE', 'Cannot connect to the PostgreSQL database', {
      retryable: true,
      cause: error,
    });
  }
  const advice = adviceFor(error, url);
  if (advice !== undefined) return new CrewdError('CONFIG_INVALID', advice, { cause: error });
  // Start-up only, for the operator: the server's reason (unknown database, failed authentication…) helps most.
  const reason = error instanceof Error ? `: ${error.message}` : '';
  return new CrewdError('CONFIG_INVALID', `Cannot open the PostgreSQL database${reason}`, { cause: error });
}

const urlShape = 'postgres://<user>:<password>@<host>:5432/<database>';

/** What to write instead, for the mistakes a first PostgreSQL URL usually has. */
function adviceFor(error: unknown, url: string): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  const user = decodeURIComponent(parsed?.username ?? '');
  const database = decodeURIComponent(parsed?.pathname.replace(/^\//, '') ?? '');
  if (code === '28000' && user === '') {
    return `The PostgreSQL URL names no user; write one, as in ${urlShape}`;
  }
  if (code === '3D000' && database !== '') {
    return (
      `The PostgreSQL database "${database}" does not exist; create it (createdb ${database}, or ` +
      `CREATE DATABASE "${database}"; in psql) or name an existing one, as in ${urlShape}`
    );
  }
  return undefined;
}
