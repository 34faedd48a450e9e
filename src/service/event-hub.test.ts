import { anyLogEntry } from '../../test/store/store-fixtures.ts';
import { describe, expect, it } from 'vitest';
import type { Execution } from '../domain/execution.ts';
import type { ExecutionChange } from '../store/store.ts';
import { EventHub } from './event-hub.ts';

const now = new Date('2026-01-01T00:00:00.000Z');
const never = new AbortController().signal;

/** What the store returns after a change that wrote `count` events and brought the log to `lastEventSequence`. */
function committed(executionId: string, lastEventSequence: number, count: number) {
  const execution = { id: executionId, lastEventSequence } as Execution;
  const change: ExecutionChange = {
    executionId,
    fromStates: ['RUNNING'],
    events: Array.from({ length: count }, (_, index) => anyLogEntry(`event-${index}`, { index })),
    now,
  };
  return [execution, change] as const;
}

describe('EventHub', () => {
  it('numbers a change’s events from the sequence the store reached, for that execution’s subscribers only', async () => {
    const hub = new EventHub();
    const watched = hub.subscribe('a');
    const other = hub.subscribe('b');

    hub.publish(...committed('a', 5, 2));

    expect(await watched.next(1000, never)).toEqual([
      { executionId: 'a', sequence: 4, type: 'event-0', data: { index: 0 }, createdAt: now },
      { executionId: 'a', sequence: 5, type: 'event-1', data: { index: 1 }, createdAt: now },
    ]);
    expect(await other.next(10, never)).toBeNull();
  });

  it('keeps what is published while nobody waits, and wakes a waiting reader at once', async () => {
    const hub = new EventHub();
    const subscription = hub.subscribe('a');
    hub.publish(...committed('a', 1, 1));
    hub.publish(...committed('a', 2, 1));
    expect((await subscription.next(1000, never))?.map((event) => event.sequence)).toEqual([1, 2]);

    const waiting = subscription.next(60_000, never);
    hub.publish(...committed('a', 3, 1));
    expect((await waiting)?.map((event) => event.sequence)).toEqual([3]);
  });

  it('answers null on a quiet spell, an abort, or after dropping events it could not hold', async () => {
    const hub = new EventHub();
    const subscription = hub.subscribe('a');
    expect(await subscription.next(10, never)).toBeNull();

    const controller = new AbortController();
    const aborted = subscription.next(60_000, controller.signal);
    controller.abort();
    expect(await aborted).toBeNull();

    for (let sequence = 1; sequence <= 1001; sequence += 1) hub.publish(...committed('a', sequence, 1));
    expect(await subscription.next(1000, never)).toBeNull();
    hub.publish(...committed('a', 1002, 1));
    expect((await subscription.next(1000, never))?.map((event) => event.sequence)).toEqual([1002]);
  });

  it('stops delivering to a closed subscription', async () => {
    const hub = new EventHub();
    const closed = hub.subscribe('a');
    const open = hub.subscribe('a');
    closed.close();
    hub.publish(...committed('a', 1, 1));
    expect(await closed.next(10, never)).toBeNull();
    expect(await open.next(1000, never)).toHaveLength(1);
  });
});
