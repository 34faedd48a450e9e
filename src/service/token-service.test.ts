import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../store/sqlite/sqlite-store.ts';
import type { Store } from '../store/store.ts';
import { createTokenService } from './token-service.ts';

let directory: string;
let store: Store;
let now: number;
const clock = () => new Date(now);

beforeEach(async () => {
  directory = mkdtempSync(join(tmpdir(), 'crewd-tokens-'));
  store = await openSqliteStore(join(directory, 'crewd.db'));
  await store.migrate();
  now = Date.parse('2025-01-01T00:00:00.000Z');
});

afterEach(async () => {
  await store.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('token service', () => {
  it('creates crewd_ secrets of 32 random bytes and stores only their SHA-256', async () => {
    const tokens = createTokenService({ store, clock });

    const { record, secret } = await tokens.create({ kind: 'org', name: 'ci' });

    expect(secret).toMatch(/^crewd_[A-Za-z0-9_-]{43}$/);
    expect(record).toMatchObject({ kind: 'org', userId: null, name: 'ci', revokedAt: null });
    expect(record.hash).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(await tokens.list()).toEqual([record]);
    await store.close();
    expect(readFileSync(join(directory, 'crewd.db')).includes(secret)).toBe(false);
    store = await openSqliteStore(join(directory, 'crewd.db'));
  });

  it('uses the random source it is given', async () => {
    const tokens = createTokenService({ store, clock, randomBytes: (size) => Buffer.alloc(size, 7) });

    const { secret } = await tokens.create({ kind: 'org' });

    expect(secret).toBe(`crewd_${Buffer.alloc(32, 7).toString('base64url')}`);
  });

  it('authenticates organization and user tokens as their callers', async () => {
    const tokens = createTokenService({ store, clock });
    const org = await tokens.create({ kind: 'org' });
    const user = await tokens.create({ kind: 'user', userId: 'alice' });

    expect(await tokens.authenticate(org.secret)).toEqual({
      tokenId: org.record.id,
      kind: 'org',
      userId: null,
    });
    expect(await tokens.authenticate(user.secret)).toEqual({
      tokenId: user.record.id,
      kind: 'user',
      userId: 'alice',
    });
    expect(await tokens.authenticate('crewd_unknown')).toBeNull();
    expect(await tokens.authenticate('')).toBeNull();
  });

  it('carries the crews a token is limited to, and whether it deploys, to its caller', async () => {
    const tokens = createTokenService({ store, clock });
    const limited = await tokens.create({ kind: 'user', userId: 'bea', crews: ['notes', 'notes', 'briefs'] });
    const deployer = await tokens.create({ kind: 'org', deploy: true });

    expect(await tokens.authenticate(limited.secret)).toMatchObject({ crews: ['notes', 'briefs'] });
    expect(await tokens.authenticate(deployer.secret)).toMatchObject({ kind: 'org', deploy: true });
    await expect(tokens.create({ kind: 'org', crews: [] })).rejects.toThrow('Name at least one crew');
    await expect(tokens.create({ kind: 'org', crews: ['../x'] })).rejects.toThrow('is not a crew name');
    await expect(tokens.create({ kind: 'user', userId: 'bea', deploy: true })).rejects.toThrow(
      'A deploy token belongs to the organization',
    );
  });

  it('refuses a revoked token at once in the revoking service', async () => {
    const tokens = createTokenService({ store, clock });
    const { record, secret } = await tokens.create({ kind: 'org' });
    await tokens.authenticate(secret);

    expect(await tokens.revoke(record.id)).toBe(true);

    expect(await tokens.authenticate(secret)).toBeNull();
    expect(await tokens.revoke('tok_missing')).toBe(false);
  });

  it('refuses a token revoked elsewhere within a second, once its short cache entry expires', async () => {
    // The server's default cache, as `crewd serve` runs it.
    const server = createTokenService({ store, clock });
    const cli = createTokenService({ store, clock });
    const { record, secret } = await cli.create({ kind: 'org' });
    expect(await server.authenticate(secret)).not.toBeNull();

    await cli.revoke(record.id);
    // Still served from the cache for a moment: that is what saves a store read on every request.
    now += 100;
    expect(await server.authenticate(secret)).not.toBeNull();
    now += 900;

    expect(await server.authenticate(secret)).toBeNull();
  });

  it('hashes a secret for the store read alone, not again while its cache entry lasts', async () => {
    let hashed = 0;
    const hash = (secret: string): string => {
      hashed += 1;
      return createHash('sha256').update(secret, 'utf8').digest('hex');
    };
    const tokens = createTokenService({ store, clock, hash });
    const { secret } = await tokens.create({ kind: 'org' });
    hashed = 0;

    for (let request = 0; request < 5; request += 1) expect(await tokens.authenticate(secret)).not.toBeNull();
    expect(hashed).toBe(1);
    now += 500;

    expect(await tokens.authenticate(secret)).not.toBeNull();
    expect(hashed).toBe(2);
    expect(await tokens.authenticate(`${secret}x`)).toBeNull();
  });

  it('registers a chosen secret once, however often it is registered', async () => {
    const tokens = createTokenService({ store, clock });

    const first = await tokens.register('my-org-token-from-env', { kind: 'org', name: 'CREWD_ORG_TOKEN' });
    const second = await tokens.register('my-org-token-from-env', { kind: 'org', name: 'CREWD_ORG_TOKEN' });

    expect(second.id).toBe(first.id);
    expect(await tokens.list()).toHaveLength(1);
    expect(await tokens.authenticate('my-org-token-from-env')).toMatchObject({
      tokenId: first.id,
      kind: 'org',
    });
  });

  it.each(['', 'has space', 'line\nbreak', 'x'.repeat(513)])('refuses to register %j', async (secret) => {
    const tokens = createTokenService({ store, clock });

    await expect(tokens.register(secret, { kind: 'org' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
  });

  it('requires a user id for user tokens and refuses one for organization tokens', async () => {
    const tokens = createTokenService({ store, clock });

    await expect(tokens.create({ kind: 'user' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(tokens.create({ kind: 'user', userId: ' ' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(tokens.create({ kind: 'org', userId: 'alice' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
  });
});
