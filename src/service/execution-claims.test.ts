import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../store/sqlite/sqlite-store.ts';
import type { Store } from '../store/store.ts';
import type { Dispatcher } from './dispatcher.ts';
import { ExecutionClaims } from './execution-claims.ts';

const t0 = new Date('2030-01-01T00:00:00Z');

describe('execution claims', () => {
  let dir: string;
  let store: Store;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'crewd-claims-'));
    store = await openSqliteStore(join(dir, 'crewd.db'));
    await store.migrate();
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function waiting(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const { execution } = await store.createExecution({
        id: `execution-${index}`,
        inputs: {},
        meta: null,
        webhooks: { taskUrl: null, stepUrl: null, crewUrl: null, humanInput: null },
        owner: { tokenId: 'token', userId: null },
        idempotencyKey: null,
        requestHash: null,
        createdAt: new Date(t0.getTime() + index),
      });
      ids.push(execution.id);
    }
    return ids;
  }

  function claimsWithRoom(room: { free: number }, submitted: string[]): ExecutionClaims {
    const dispatcher: Dispatcher = {
      submit: (id) => {
        submitted.push(id);
        room.free -= 1;
      },
      room: () => room.free,
      drain: () => Promise.resolve(),
    };
    return new ExecutionClaims({
      store,
      dispatcher,
      clock: () => t0,
      lease: { owner: 'this-process', durationMs: 30_000 },
      scanMs: 3_600_000,
      onError: (error) => {
        throw error;
      },
    });
  }

  it('claims the oldest waiting executions, no more than there is room for', async () => {
    const ids = await waiting(5);
    const room = { free: 3 };
    const submitted: string[] = [];
    const claims = claimsWithRoom(room, submitted);

    await claims.claim();
    expect(submitted).toEqual(ids.slice(0, 3));
    await claims.claim();
    expect(submitted).toHaveLength(3);

    room.free = 5;
    await claims.claim();
    expect(submitted).toEqual(ids);
  });

  it('serves wake-ups that come during a claim with one more claim after it', async () => {
    const ids = await waiting(2);
    const room = { free: 1 };
    const submitted: string[] = [];
    const claims = claimsWithRoom(room, submitted);

    const first = claims.claim();
    room.free = 2;
    claims.wake();
    claims.wake();
    await first;

    expect(submitted).toEqual(ids);
  });
});
