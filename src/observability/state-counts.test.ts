import { describe, expect, it } from 'vitest';
import { executionStates, type ExecutionState } from '../domain/execution.ts';
import { StateCounts } from './state-counts.ts';

/** A store of `stored` executions by state that records which states each count asked for. */
function countingStore(stored: Partial<Record<ExecutionState, number>>) {
  const asked: (readonly ExecutionState[])[] = [];
  return {
    asked,
    stored,
    count: (states: readonly ExecutionState[]) => {
      asked.push(states);
      const counts = Object.fromEntries(executionStates.map((state) => [state, 0])) as Record<
        ExecutionState,
        number
      >;
      for (const state of states) counts[state] = stored[state] ?? 0;
      return Promise.resolve(counts);
    },
  };
}

describe('execution counts for metrics', () => {
  it('counts every state on each read while few executions have finished', async () => {
    const store = countingStore({ PENDING: 2, RUNNING: 1, SUCCESS: 5 });
    const counts = new StateCounts({ count: store.count, now: () => 0, recountFinishedBelow: 10 });

    expect(await counts.read()).toEqual({
      PENDING: 2,
      RUNNING: 1,
      PAUSED: 0,
      SUCCESS: 5,
      FAILED: 0,
      REVOKED: 0,
    });
    store.stored.SUCCESS = 6;
    expect((await counts.read()).SUCCESS).toBe(6);
    expect(store.asked).toEqual([
      ['PENDING', 'RUNNING', 'PAUSED'],
      ['SUCCESS', 'FAILED', 'REVOKED'],
      ['PENDING', 'RUNNING', 'PAUSED'],
      ['SUCCESS', 'FAILED', 'REVOKED'],
    ]);
  });

  it('past the threshold, counts finished executions again only once the interval has passed', async () => {
    const store = countingStore({ PENDING: 3, SUCCESS: 10, FAILED: 2 });
    let now = 1_000;
    const counts = new StateCounts({
      count: store.count,
      now: () => now,
      recountFinishedBelow: 10,
      finishedCountTtlMs: 60_000,
    });
    await counts.read();

    store.stored.PENDING = 4;
    store.stored.SUCCESS = 11;
    now += 59_999;
    // Waiting work is always current; the finished count is the one taken a minute ago.
    expect(await counts.read()).toMatchObject({ PENDING: 4, SUCCESS: 10, FAILED: 2 });
    now += 1;
    expect(await counts.read()).toMatchObject({ PENDING: 4, SUCCESS: 11, FAILED: 2 });
    expect(store.asked.filter((states) => states.includes('SUCCESS'))).toHaveLength(2);
  });

  it('shares one count between reads that come while it runs', async () => {
    const store = countingStore({ RUNNING: 1 });
    const counts = new StateCounts({ count: store.count, now: () => 0 });

    const [first, second] = await Promise.all([counts.read(), counts.read()]);

    expect(first).toEqual(second);
    expect(store.asked).toHaveLength(2);
  });
});
