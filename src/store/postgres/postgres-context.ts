import type pg from 'pg';
import type { Row, RowDecoder } from '../row-decoder.ts';
import { rowDecoder } from '../row-decoder.ts';
import type { NamedQuery } from './named-query.ts';
import { bindQuery } from './named-query.ts';
import { toStoreError } from './postgres-errors.ts';

/** What the PostgreSQL store's parts share: a way to run their statements and the row decoder. */
export interface PostgresContext {
  /** Runs one statement (its own transaction) and returns its rows. */
  readonly query: (query: NamedQuery, values?: Readonly<Record<string, unknown>>) => Promise<Row[]>;
  /**
   * Runs one statement in a transaction that first takes the advisory lock named `lock` (per schema), so statements
   * run this way with one name never overlap and each sees what the one before it committed.
   */
  readonly serialized: (
    lock: string,
    query: NamedQuery,
    values?: Readonly<Record<string, unknown>>,
  ) => Promise<Row[]>;
  readonly decode: RowDecoder;
}

export function createPostgresContext(pool: pg.Pool): PostgresContext {
  return {
    query: async (query, values = {}) => {
      try {
        return (await pool.query<Row>(bindQuery(query, values))).rows;
      } catch (error) {
        throw toStoreError(error);
      }
    },
    serialized: async (lock, query, values = {}) => {
      const client = await pool.connect().catch((error: unknown) => {
        throw toStoreError(error);
      });
      // A client whose rollback failed is broken and must not return to the pool.
      let broken = false;
      try {
        await client.query('BEGIN');
        await client.query("SELECT pg_advisory_xact_lock(hashtext($1 || ' ' || current_schema()))", [lock]);
        const { rows } = await client.query<Row>(bindQuery(query, values));
        await client.query('COMMIT');
        return rows;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw toStoreError(error);
      } finally {
        client.release(broken);
      }
    },
    // pg already parses json columns and turns timestamptz into Date.
    decode: rowDecoder({ json: (value) => value, date: (value) => value as Date }),
  };
}
