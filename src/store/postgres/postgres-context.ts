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
    // pg already parses json columns and turns timestamptz into Date.
    decode: rowDecoder({ json: (value) => value, date: (value) => value as Date }),
  };
}
