import { describe, expect, it } from 'vitest';
import { readServeConfig } from './config.ts';
import { CrewdError } from './domain/errors.ts';

function refusal(flags: Parameters<typeof readServeConfig>[1], env: Record<string, string>): string {
  try {
    readServeConfig('crew', flags, env);
  } catch (error) {
    expect(error).toBeInstanceOf(CrewdError);
    expect((error as CrewdError).code).toBe('CONFIG_INVALID');
    return (error as CrewdError).message;
  }
  return expect.fail('expected the configuration to be refused');
}

describe('readServeConfig', () => {
  it('reads a variable set to the empty string (or blanks) as unset, like an absent one', () => {
    const empty = {
      PORT: '',
      HOST: ' ',
      CREWD_DATABASE_URL: '',
      CREWD_CONCURRENCY: '',
      CREWD_RATE_LIMIT: '',
      CREWD_SHUTDOWN_GRACE_MS: '',
      CREWD_EXECUTION_LEASE_MS: '',
      CREWD_WEBHOOK_ALLOW_PRIVATE: '',
    };

    expect(readServeConfig('crew', {}, empty)).toEqual(readServeConfig('crew', {}, {}));
    expect(readServeConfig('crew', {}, empty)).toMatchObject({
      port: 8000,
      host: '127.0.0.1',
      concurrency: 64,
      rateLimitPerMinute: 1200,
      shutdownGraceMs: 10_000,
    });
  });

  it('names the flag beside the variable, since either may carry the wrong value', () => {
    expect(refusal({ port: 'abc' }, {})).toBe('--port or PORT must be a number');
    expect(refusal({}, { PORT: '70000' })).toBe('--port or PORT must be at most 65535');
    expect(refusal({ database: '' }, {})).toBe('--database or CREWD_DATABASE_URL must not be empty');
  });

  it('takes a file path or a postgres:// URL as the database, and refuses any other URL', () => {
    expect(readServeConfig('crew', { database: './data/crewd.db' }, {}).database).toBe('./data/crewd.db');
    expect(readServeConfig('crew', {}, { CREWD_DATABASE_URL: 'postgresql://db/crewd' }).database).toBe(
      'postgresql://db/crewd',
    );
    for (const url of ['mysql://x/y', 'sqlite:///tmp/crewd.db', 'https://db.example.com']) {
      expect(refusal({}, { CREWD_DATABASE_URL: url })).toBe(
        '--database or CREWD_DATABASE_URL must be a file path (SQLite) or a postgres:// URL',
      );
    }
  });

  it('caps connections per address at 256 unless CREWD_CONNECTIONS_PER_ADDRESS says otherwise (0: no cap)', () => {
    expect(readServeConfig('crew', {}, {}).connectionsPerAddress).toBe(256);
    expect(readServeConfig('crew', {}, { CREWD_CONNECTIONS_PER_ADDRESS: '0' }).connectionsPerAddress).toBe(0);
    expect(refusal({}, { CREWD_CONNECTIONS_PER_ADDRESS: '-1' })).toBe(
      'CREWD_CONNECTIONS_PER_ADDRESS must be at least 0',
    );
  });

  it('reads the limits per token, and has none unless they are set', () => {
    expect(readServeConfig('crew', {}, {})).not.toHaveProperty('tokenConcurrency');
    expect(readServeConfig('crew', {}, {})).not.toHaveProperty('queueLimit');
    const limited = readServeConfig('crew', {}, { CREWD_TOKEN_CONCURRENCY: '2', CREWD_QUEUE_LIMIT: '100' });
    expect(limited).toMatchObject({ tokenConcurrency: 2, queueLimit: 100 });
    expect(() => readServeConfig('crew', {}, { CREWD_QUEUE_LIMIT: '0' })).toThrow(/CREWD_QUEUE_LIMIT/);
  });
});
