import { tokenValues } from '../row-encoder.ts';
import type { TokenStore } from '../store.ts';
import type { SqliteContext } from './sqlite-context.ts';
import { settle } from './sqlite-context.ts';

const insertToken = `
  INSERT INTO tokens (id, kind, user_id, name, crews, deploy, hash, created_at, revoked_at, daily_budget)
  VALUES (:id, :kind, :user_id, :name, :crews, :deploy, :hash, :created_at, :revoked_at, :daily_budget)
  ON CONFLICT (hash) DO NOTHING
  RETURNING *`;

const selectByHash = 'SELECT * FROM tokens WHERE hash = ?';
const selectActiveByHash = 'SELECT * FROM tokens WHERE hash = ? AND revoked_at IS NULL';
const selectAll = 'SELECT * FROM tokens ORDER BY created_at, id';
// A second revoke keeps the first revocation time.
const revoke = 'UPDATE tokens SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?';

export function sqliteTokenStore({ statement, decode, writes }: SqliteContext): TokenStore {
  return {
    createToken: (token) =>
      writes.write(() => {
        const row = statement(insertToken).get(tokenValues(token)) ?? statement(selectByHash).get(token.hash);
        if (row === undefined) throw new Error('Token insert was skipped without a conflicting row');
        return decode.token(row);
      }),

    findActiveToken: (hash) =>
      settle(() => {
        const row = statement(selectActiveByHash).get(hash);
        return row === undefined ? null : decode.token(row);
      }),

    listTokens: () =>
      settle(() =>
        statement(selectAll)
          .all()
          .map((row) => decode.token(row)),
      ),

    revokeToken: (id, now) => writes.write(() => statement(revoke).run(now.toISOString(), id).changes > 0),
  };
}
