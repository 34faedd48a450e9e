import { openStore } from '../../src/open-store.ts';
import { createTokenService } from '../../src/service/token-service.ts';

/** Makes the database at `database` (migrating it) and a user token for each of `users`, in order: their secrets. */
export async function userTokens(database: string, ...users: readonly string[]): Promise<string[]> {
  const store = await openStore(database);
  try {
    await store.migrate();
    const tokens = createTokenService({ store, clock: () => new Date() });
    const secrets: string[] = [];
    for (const userId of users) secrets.push((await tokens.create({ kind: 'user', userId })).secret);
    return secrets;
  } finally {
    await store.close();
  }
}
