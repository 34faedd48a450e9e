import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { ChangeListener, ExecutionNotice } from '../../src/store/coordination-feed.ts';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.ts';
import type { Store } from '../../src/store/store.ts';
import {
  createTestSchema,
  dropTestSchema,
  postgresAvailability,
  postgresRequired,
} from '../support/postgres.ts';
import { until } from '../support/until.ts';
import { at, newExecution } from './store-fixtures.ts';

const postgres = await postgresAvailability();
const skip = !postgres.reachable && !postgresRequired();

/** A listener that keeps what it hears. */
function recorder(): ChangeListener & { notices: ExecutionNotice[]; resyncs: number } {
  const heard = {
    notices: [] as ExecutionNotice[],
    resyncs: 0,
    changed: (notice: ExecutionNotice) => heard.notices.push(notice),
    resync: () => {
      heard.resyncs += 1;
    },
  };
  return heard;
}

describe.skipIf(skip)(
  skip ? `PostgreSQL coordination (skipped: ${postgres.reason})` : 'PostgreSQL coordination',
  () => {
    let schema = 'crewd_test_unset';
    const opened: Store[] = [];

    async function process(processId: string, listener: ChangeListener = recorder()): Promise<Store> {
      const store = await openPostgresStore(postgres.url, { schema, poolSize: 2, processId });
      opened.push(store);
      await store.migrate();
      await store.feed.start(listener);
      return store;
    }

    beforeAll(async () => {
      if (!postgres.reachable)
        throw new Error(`${postgres.reason} (set CREWD_SKIP_POSTGRES=1 to skip the PostgreSQL suites)`);
      schema = await createTestSchema(postgres.url);
    });

    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close().catch(() => undefined);
    });

    afterAll(async () => {
      await dropTestSchema(schema, postgres.url);
    });

    it('tells other processes of every committed change, in commit order, and not the process that made it', async () => {
      const writerHeard = recorder();
      const readerHeard = recorder();
      const writer = await process('process-writer', writerHeard);
      await process('process-reader', readerHeard);

      const { execution } = await writer.createExecution(newExecution());
      const running = await writer.applyChange({
        executionId: execution.id,
        fromStates: ['PENDING'],
        state: 'RUNNING',
        lease: { owner: 'process-writer', until: at(60) },
        now: at(1),
      });
      // A change whose guard fails commits nothing and tells nothing.
      await writer.applyChange({
        executionId: execution.id,
        fromStates: ['PAUSED'],
        state: 'SUCCESS',
        now: at(2),
      });
      await writer.applyChange({
        executionId: execution.id,
        fromStates: ['RUNNING'],
        state: 'REVOKED',
        now: at(3),
      });

      await until(() => readerHeard.notices.length === 3);
      expect(
        readerHeard.notices.map(({ state, leaseOwner, revision }) => ({ state, leaseOwner, revision })),
      ).toEqual([
        { state: 'PENDING', leaseOwner: null, revision: 0 },
        { state: 'RUNNING', leaseOwner: 'process-writer', revision: running?.revision },
        { state: 'REVOKED', leaseOwner: 'process-writer', revision: (running?.revision ?? 0) + 1 },
      ]);
      expect(readerHeard.notices.every((notice) => notice.executionId === execution.id)).toBe(true);
      expect(writerHeard.notices).toEqual([]);
    });

    it('listens again after losing its connection, tells its listener to resync, and hears changes after that', async () => {
      const readerHeard = recorder();
      const writer = await process('process-writer');
      const reader = await process('process-reader', readerHeard);
      expect(reader.feed.connected).toBe(true);

      await terminateFeedConnection('process-reader');
      await until(() => readerHeard.resyncs === 1);
      expect(reader.feed.connected).toBe(true);

      const { execution } = await writer.createExecution(newExecution());
      await until(() => readerHeard.notices.some((notice) => notice.executionId === execution.id));
    });
  },
);

/** Ends the feed connection of a process from the server's side, as a network failure would. */
async function terminateFeedConnection(processId: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  try {
    const { rowCount } = await client.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
      [`crewd ${processId}`],
    );
    expect(rowCount).toBe(1);
  } finally {
    await client.end();
  }
}
