import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCrewdError } from '../../src/domain/errors.ts';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.ts';
import {
  createTestSchema,
  dropTestSchema,
  postgresAvailability,
  postgresRequired,
} from '../support/postgres.ts';
import { describeStoreContract } from './store-contract.ts';
import { rejectionOf } from './store-fixtures.ts';

const postgres = await postgresAvailability();
// Unreachable: the suite runs and fails, unless CREWD_SKIP_POSTGRES=1 asks to skip it (the reason in its name).
const skip = !postgres.reachable && !postgresRequired();

describe.skipIf(skip)(skip ? `PostgreSQL (skipped: ${postgres.reason})` : 'PostgreSQL', () => {
  let schema = 'crewd_test_unset';

  beforeAll(async () => {
    if (!postgres.reachable)
      throw new Error(`${postgres.reason} (set CREWD_SKIP_POSTGRES=1 to skip the PostgreSQL suites)`);
    schema = await createTestSchema(postgres.url);
  });

  afterAll(async () => {
    await dropTestSchema(schema, postgres.url);
  });

  describeStoreContract(
    'PostgreSQL store',
    (options) => openPostgresStore(postgres.url, { schema, poolSize: 4, ...options }),
    // The next store opened creates the schema again.
    () => dropTestSchema(schema, postgres.url),
  );
});

describe('PostgreSQL store start-up', () => {
  it('reports an unreachable server as an unavailable dependency without its address', async () => {
    const error = await rejectionOf(openPostgresStore('postgres://postgres@127.0.0.1:1/test'));
    expect(isCrewdError(error) && error.code).toBe('DEPENDENCY_UNAVAILABLE');
    expect((error as Error).message).not.toContain('127.0.0.1');
  });

  it('refuses a schema name that is not a plain identifier', async () => {
    const error = await rejectionOf(openPostgresStore(postgres.url, { schema: 'x; DROP TABLE y' }));
    expect(isCrewdError(error) && error.code).toBe('CONFIG_INVALID');
  });
});
