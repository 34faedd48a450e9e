import { tokenValues } from '../row-encoder.ts';
import type { TokenStore } from '../store.ts';
import { namedQuery } from './named-query.ts';
import type { PostgresContext } from './postgres-context.ts';

const insertToken = namedQuery(
  'insert_token',
  `INSERT INTO tokens (id, kind, user_id, name, crews, deploy, hash, created_at, revoked_at, daily_budget)
   VALUES (:id, :kind, :user_id, :name, :crews::json, :deploy::integer::boolean, :hash, :created_at::timestamptz, :revoked_at::timestamptz, :daily_budget::json)
   ON CONFLICT (hash) DO NOTHING
   RETURNING *`,
);

const selectByHash = namedQuery('select_token_by_hash', 'SELECT * FROM tokens WHERE hash = :hash');

const selectActiveByHash = namedQuery(
  'select_active_token_by_hash',
  'SELECT * FROM tokens WHERE hash = :hash AND revoked_at IS NULL',
);

const selectAll = namedQuery('select_tokens', 'SELECT * FROM tokens ORDER BY created_at, id');

// A second revoke keeps the first revocation time.
const revoke = namedQuery(
  'revoke_token',
  'UPDATE tokens SET revoked_at = coalesce(revoked_at, :now::timestamptz) WHERE id = :id RETURNING id',
);

export function postgresTokenStore({ query, decode }: PostgresContext): TokenStore {
  return {
    createToken: async (token) => {
      const [inserted] = await query(insertToken, tokenValues(token));
      const row = inserted ?? (await query(selectByHash, { hash: token.hash }))[0];
      if (row === undefined) throw new Error('Token insert was skipped without a conflicting row');
      return decode.token(row);
    },

    findActiveToken: async (hash) => {
      const [row] = await query(selectActiveByHash, { hash });
      return row === undefined ? null : decode.token(row);
    },

    listTokens: async () => (await query(selectAll)).map((row) => decode.token(row)),

    revokeToken: async (id, now) => (await query(revoke, { id, now: now.toISOString() })).length > 0,
  };
}
