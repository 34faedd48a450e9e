import { describe, expect, it } from 'vitest';
import type { StoreHarness } from './store-harness.ts';
import { at, t0, tokenRecord } from './store-fixtures.ts';

export function describeTokenStoreContract(harness: StoreHarness): void {
  describe('tokens', () => {
    it('stores a token once per hash, returning the existing record for a repeated hash', async () => {
      const store = await harness.open();
      const user = tokenRecord({ kind: 'user', userId: 'user-1', name: null });
      expect(await store.createToken(user)).toEqual(user);
      expect(await store.createToken({ ...user, id: 'another-id', name: 'again' })).toEqual(user);
      expect(await store.findActiveToken(user.hash)).toEqual(user);

      const org = await store.createToken(tokenRecord({ createdAt: at(1) }));
      expect(await store.listTokens()).toEqual([user, org]);
    });

    it('finds only tokens that are not revoked', async () => {
      const store = await harness.open();
      const token = await store.createToken(tokenRecord());
      expect(await store.findActiveToken('unknown-hash')).toBeNull();

      expect(await store.revokeToken(token.id, at(5))).toBe(true);
      expect(await store.findActiveToken(token.hash)).toBeNull();
      expect(await store.listTokens()).toEqual([{ ...token, revokedAt: at(5) }]);

      expect(await store.revokeToken(token.id, at(9))).toBe(true);
      expect((await store.listTokens())[0]!.revokedAt).toEqual(at(5));
      expect(await store.revokeToken('no-such-token', t0)).toBe(false);
    });
  });
}
