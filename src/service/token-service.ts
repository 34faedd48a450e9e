import type { Budget } from '../domain/budget.ts';
import { createHash, randomBytes as nodeRandomBytes, timingSafeEqual } from 'node:crypto';
import { CrewdError } from '../domain/errors.ts';
import type { TokenKind, TokenRecord, TokenStore } from '../store/store.ts';
import { crewNamePattern, crewNameRule } from '../domain/crew-name.ts';
import type { Caller } from './execution-service.ts';

export interface TokenServiceDeps {
  readonly store: TokenStore;
  readonly clock: () => Date;
  readonly randomBytes?: (size: number) => Buffer;
  /**
   * How long a successful lookup is reused, in milliseconds (default 500, 0 turns caching off). Kept well under a
   * second so a token revoked from another process stops working within one.
   */
  readonly cacheMs?: number;
  /** How a secret becomes the hash the store keeps; `hashSecret` unless a test counts the calls. */
  readonly hash?: (secret: string) => string;
}

export interface NewToken {
  readonly kind: TokenKind;
  /** Required for user tokens, refused for organization tokens. */
  readonly userId?: string;
  readonly name?: string;
  /** Limits the token to these crews (by name); every crew when absent. */
  readonly crews?: readonly string[];
  /** A token for `crewd deploy` (an organization token that deploys and does nothing else). */
  readonly deploy?: boolean;
  /** What the token's executions may spend together in a day (UTC) before each pauses for approval. */
  readonly dailyBudget?: Budget;
}

export interface CreatedToken {
  readonly record: TokenRecord;
  /** Shown once; only its hash is stored. */
  readonly secret: string;
}

export interface TokenService {
  create(token: NewToken): Promise<CreatedToken>;
  /** Stores a secret chosen elsewhere (`CREWD_ORG_TOKEN`); registering the same secret again is a no-op. */
  register(secret: string, token: NewToken): Promise<TokenRecord>;
  /** The caller a secret stands for, or null when it is unknown or revoked. */
  authenticate(secret: string): Promise<Caller | null>;
  list(): Promise<readonly TokenRecord[]>;
  /** False when no token has this id. */
  revoke(id: string): Promise<boolean>;
}

const secretPrefix = 'crewd_';
const secretBytes = 32;
const idBytes = 12;
const maxSecretLength = 512;
const maxCachedTokens = 1024;
// Printable ASCII without spaces: what fits in `Authorization: Bearer <token>` unchanged.
const secretPattern = /^[\x21-\x7e]+$/;

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function createTokenService(deps: TokenServiceDeps): TokenService {
  const random = deps.randomBytes ?? nodeRandomBytes;
  const hash = deps.hash ?? hashSecret;
  const cacheMs = deps.cacheMs ?? 500;
  const cache = new Map<string, { readonly caller: Caller; readonly until: number }>();

  async function store(secret: string, token: NewToken): Promise<TokenRecord> {
    const userId = checkOwner(token);
    const crews = checkCrews(token.crews);
    return deps.store.createToken({
      id: `tok_${random(idBytes).toString('base64url')}`,
      kind: token.kind,
      userId,
      name: token.name ?? null,
      crews,
      deploy: token.deploy === true,
      dailyBudget: checkDailyBudget(token.dailyBudget),
      hash: hash(secret),
      createdAt: deps.clock(),
      revokedAt: null,
    });
  }

  return {
    async create(token) {
      const secret = `${secretPrefix}${random(secretBytes).toString('base64url')}`;
      return { record: await store(secret, token), secret };
    },

    async register(secret, token) {
      if (secret.length > maxSecretLength || !secretPattern.test(secret)) {
        throw new CrewdError(
          'VALIDATION_ERROR',
          `A token must be 1 to ${maxSecretLength} printable characters without spaces`,
        );
      }
      return store(secret, token);
    },

    async authenticate(secret) {
      if (secret.length === 0 || secret.length > maxSecretLength) return null;
      const now = deps.clock().getTime();
      // Looked up by the secret itself: a stream checks its token before every event, and hashing each time cost
      // more than the lookup saves.
      const cached = cache.get(secret);
      if (cached !== undefined && cached.until > now) return cached.caller;
      cache.delete(secret);
      const secretHash = hash(secret);
      const record = await deps.store.findActiveToken(secretHash);
      if (record === null || !sameHash(record.hash, secretHash)) return null;
      const caller: Caller = {
        tokenId: record.id,
        kind: record.kind,
        userId: record.userId,
        ...(record.crews === null || record.crews === undefined ? {} : { crews: record.crews }),
        ...(record.deploy === true ? { deploy: true } : {}),
        ...(record.dailyBudget == null ? {} : { dailyBudget: record.dailyBudget }),
      };
      if (cacheMs > 0) {
        // Bounded: a flood of distinct valid tokens cannot grow it without limit.
        if (cache.size >= maxCachedTokens) cache.clear();
        cache.set(secret, { caller, until: now + cacheMs });
      }
      return caller;
    },

    list() {
      return deps.store.listTokens();
    },

    async revoke(id) {
      const revoked = await deps.store.revokeToken(id, deps.clock());
      cache.clear();
      return revoked;
    },
  };
}

function checkOwner(token: NewToken): string | null {
  if (token.deploy === true && token.kind !== 'org') {
    throw new CrewdError('VALIDATION_ERROR', 'A deploy token belongs to the organization, not a user');
  }
  if (token.kind === 'user') {
    if (token.userId === undefined || token.userId.trim() === '') {
      throw new CrewdError('VALIDATION_ERROR', 'A user token needs a user id');
    }
    return token.userId;
  }
  if (token.userId !== undefined) {
    throw new CrewdError('VALIDATION_ERROR', 'An organization token has no user id');
  }
  return null;
}

function checkCrews(crews: readonly string[] | undefined): readonly string[] | null {
  if (crews === undefined) return null;
  if (crews.length === 0)
    throw new CrewdError('VALIDATION_ERROR', 'Name at least one crew a token may reach');
  const wrong = crews.find((name) => !crewNamePattern.test(name));
  if (wrong !== undefined) {
    throw new CrewdError('VALIDATION_ERROR', `'${wrong}' is not a crew name (${crewNameRule})`);
  }
  return [...new Set(crews)];
}

/** The store found the record by this hash; comparing again in constant time guards against lax lookups. */
function sameHash(stored: string, computed: string): boolean {
  const a = Buffer.from(stored, 'utf8');
  const b = Buffer.from(computed, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A daily budget sets tokens, dollars or both, each above 0; null when the token has none. */
function checkDailyBudget(budget: Budget | undefined): Budget | null {
  if (budget === undefined) return null;
  const { tokens, costUsd } = budget;
  if (tokens === undefined && costUsd === undefined) {
    throw new CrewdError('VALIDATION_ERROR', 'A daily budget sets tokens, dollars or both');
  }
  if (tokens !== undefined && !(Number.isInteger(tokens) && tokens > 0)) {
    throw new CrewdError('VALIDATION_ERROR', 'A daily budget of tokens must be a whole number above 0');
  }
  if (costUsd !== undefined && !(Number.isFinite(costUsd) && costUsd > 0)) {
    throw new CrewdError('VALIDATION_ERROR', 'A daily budget in dollars must be a number above 0');
  }
  return budget;
}
