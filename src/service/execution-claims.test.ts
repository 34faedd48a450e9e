import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { openSqliteStore } from '../store/sqlite/sqlite-store.ts';
import type { ClaimedExecution, Store } from '../store/store.ts';
import type { Dispatcher } from './dispatcher.ts';
import { newExecution } from '../../test/store/store-fixtures.ts';
import { ExecutionClaims } from './execution-claims.ts';

const t0 = new Date('2030-01-01T00:00:00Z');

/** A dispatcher with `room.free` slots, as the test sets them, that hands what is queued to `submit`. */
function fakeDispatcher(room: { free: number }, submit: (executionId: string) => void): Dispatcher {
  return {
    submit,
    reserve: (most) => {
      let held = Math.min(most, room.free);
      return {
        get size() {
          return held;
        },
        submit: (executionId) => {
          held -= 1;
          submit(executionId);
        },
        release: () => (held = 0),
      };
    },
    room: () => room.free,
    inHand: () => [],
    drain: () => Promise.resolve(),
  };
}

describe('execution claims', () => {
  let dir: string;
  let store: Store;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'crewd-claims-'));
    store = await openSqliteStore(join(dir, 'crewd.db'));
    await store.migrate();
  });

  afterEach(async () => {
    vi.useRealTimers();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function waiting(count: number, lease?: { owner: string; until: Date }): Promise<string[]> {
    const ids: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const { execution } = await store.createExecution(
        newExecution({
          ...(lease === undefined ? {} : { lease }),
          id: `execution-${index}`,
          createdAt: new Date(t0.getTime() + index),
        }),
      );
      ids.push(execution.id);
    }
    return ids;
  }

  function claimsWithRoom(room: { free: number }, submitted: string[]): ExecutionClaims {
    const dispatcher = fakeDispatcher(room, (id) => {
      submitted.push(id);
      room.free -= 1;
    });
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

  it("takes over a live process's execution at the first claim scan after its lease ran out, not before", async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'], now: t0 });
    const leaseMs = 30_000;
    const scanMs = 1_000;
    // Another process, alive (it holds its liveness lock), so only its lease running out ends its hold. Its last
    // renewal, at t0, leased the execution until t0 + lease; then it hung.
    const hungOwner = 'hung-process';
    const hung = await openSqliteStore(join(dir, 'crewd.db'), { processId: hungOwner });
    await hung.feed.start({ changed: () => {}, resync: () => {} });
    onTestFinished(() => hung.close());
    const [id] = await waiting(1, { owner: hungOwner, until: new Date(t0.getTime() + leaseMs) });
    const scans: { at: number; claimed: Promise<readonly ClaimedExecution[]> }[] = [];
    const claimExecutions = store.claimExecutions.bind(store);
    const watched: Store = {
      ...store,
      claimExecutions: (owner, now, until, limit, inHand) => {
        const claimed = claimExecutions(owner, now, until, limit, inHand);
        scans.push({ at: now.getTime() - t0.getTime(), claimed });
        return claimed;
      },
    };
    const submitted: string[] = [];
    const claims = new ExecutionClaims({
      store: watched,
      dispatcher: fakeDispatcher({ free: 1 }, (executionId) => submitted.push(executionId)),
      clock: () => new Date(),
      lease: { owner: 'this-process', durationMs: leaseMs },
      scanMs,
      onError: (error) => {
        throw error;
      },
    });
    /** Lets the scan timer fire once, and the claim it starts end before time moves on. */
    const nextScan = async (): Promise<readonly ClaimedExecution[]> => {
      const before = scans.length;
      await vi.advanceTimersByTimeAsync(scanMs);
      expect(scans).toHaveLength(before + 1);
      const claimed = await scans.at(-1)!.claimed;
      await new Promise((done) => setImmediate(done));
      return claimed;
    };
    // This process starts claiming a quarter of a scan after the hung one's last renewal, so no scan falls on the
    // lease's very end.
    await vi.advanceTimersByTimeAsync(scanMs / 4);
    await claims.start();
    const lastScanInLease = leaseMs - scanMs + scanMs / 4;
    while (scans.at(-1)!.at < lastScanInLease) expect(await nextScan()).toEqual([]);
    expect(scans.at(-1)!.at).toBe(lastScanInLease);
    expect(submitted).toEqual([]);

    expect(await nextScan()).toEqual([{ id, state: 'PENDING', takenFrom: hungOwner }]);
    claims.stop();
    const firstScanAfter = scans.at(-1)!;
    expect(firstScanAfter.at).toBe(lastScanInLease + scanMs);
    expect(submitted).toEqual([id]);
    // So the execution moved within the lease and one scan of the owner's last renewal, and so of its hanging.
    expect(firstScanAfter.at).toBeLessThanOrEqual(leaseMs + scanMs);
  });
});
