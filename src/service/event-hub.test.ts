import { anyLogEntry } from '../../test/store/store-fixtures.ts';
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { Execution } from '../domain/execution.ts';
import type { ExecutionChange } from '../store/store.ts';
import { EventHub } from './event-hub.ts';

const now = new Date('2026-01-01T00:00:00.000Z');
const never = new AbortController().signal;

/** What the store returns after a change that wrote `count` events and brought the log to `lastEventSequence`. */
function committed(
  executionId: string,
  lastEventSequence: number,
  count: number,
  state: Execution['state'] = 'RUNNING',
) {
  const execution = { id: executionId, lastEventSequence, state } as Execution;
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

  it('holds the log of an execution created here from its start while it waits and runs', () => {
    const hub = new EventHub();
    hub.created({ id: 'a', lastEventSequence: 0, state: 'PENDING' } as Execution);
    expect(hub.heldEvents('a', 0)).toEqual([]);

    hub.publish(...committed('a', 2, 2));
    hub.publish(...committed('a', 3, 1));

    expect(hub.heldExecution('a')).toMatchObject({ lastEventSequence: 3 });
    expect(hub.heldEvents('a', 0)).toEqual([
      { executionId: 'a', sequence: 1, type: 'event-0', data: { index: 0 }, createdAt: now },
      { executionId: 'a', sequence: 2, type: 'event-1', data: { index: 1 }, createdAt: now },
      { executionId: 'a', sequence: 3, type: 'event-0', data: { index: 0 }, createdAt: now },
    ]);
    expect(hub.heldEvents('a', 2)?.map((event) => event.sequence)).toEqual([3]);
    expect(hub.heldEvents('a', 3)).toEqual([]);
    // A resume point past what the hub holds: only the store knows.
    expect(hub.heldEvents('a', 4)).toBeNull();
  });

  it('holds the log of an execution whose first event was committed here, and no other', () => {
    const hub = new EventHub();
    hub.publish(...committed('first', 1, 1));
    hub.publish(...committed('later', 5, 2));
    expect(hub.heldEvents('first', 0)).toHaveLength(1);
    expect(hub.heldEvents('later', 0)).toBeNull();
    expect(hub.heldExecution('later')).toBeUndefined();
  });

  it('lets go of a log at a gap, a nudge, or once the execution stops running', () => {
    const hub = new EventHub();
    for (const id of ['gap', 'nudged', 'ended', 'paused', 'resynced']) hub.publish(...committed(id, 1, 1));

    hub.publish(...committed('gap', 4, 1));
    hub.nudge('nudged');
    hub.publish(...committed('ended', 2, 1, 'SUCCESS'));
    hub.publish(...committed('paused', 2, 1, 'PAUSED'));

    for (const id of ['gap', 'nudged', 'ended', 'paused']) {
      expect(hub.heldEvents(id, 0)).toBeNull();
      expect(hub.heldExecution(id)).toBeUndefined();
    }
    expect(hub.heldEvents('resynced', 0)).toHaveLength(1);
    hub.nudge();
    expect(hub.heldEvents('resynced', 0)).toBeNull();
  });

  it('wakes a reader waiting on a signal it waited on before when that aborts, and lets go of it when closed', async () => {
    const hub = new EventHub();
    const subscription = hub.subscribe('a');
    const controller = new AbortController();
    hub.publish(...committed('a', 1, 1));
    expect(await subscription.next(60_000, controller.signal)).toHaveLength(1);
    const first = subscription.next(60_000, controller.signal);
    hub.publish(...committed('a', 2, 1));
    expect(await first).toHaveLength(1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);

    const waiting = subscription.next(60_000, controller.signal);
    controller.abort();
    expect(await waiting).toBeNull();

    const other = new AbortController();
    const closing = hub.subscribe('a');
    expect(await closing.next(1, other.signal)).toBeNull();
    closing.close();
    expect(getEventListeners(other.signal, 'abort')).toHaveLength(0);
  });
});
