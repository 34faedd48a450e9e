import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Execution } from '../../src/domain/execution.ts';
import { DurableExecutionService } from '../../src/service/durable-execution-service.ts';
import { EventHub } from '../../src/service/event-hub.ts';
import type { ExecutionRunner } from '../../src/service/execution-runner.ts';
import type { Caller } from '../../src/service/execution-service.ts';
import { Notifications } from '../../src/service/notifications.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { ExecutionChange, StoredExecutionEvent, Store } from '../../src/store/store.ts';
import { exampleCrew } from '../api/support/example-crew.ts';
import { newExecution, t0, anyLogEntry } from '../store/store-fixtures.ts';
import { idleDispatcher } from './idle-dispatcher.ts';
import { until } from '../support/until.ts';

/**
 * The service's event stream over a real SQLite store: events written straight to the store stand for those of
 * another process sharing it, events published on the hub for those of this one.
 */
describe('following an execution’s events', () => {
  let dir: string;
  let store: Store;
  let hub: EventHub;
  let service: DurableExecutionService;
  /** How often the stream has listed the store's events so far. */
  let listings = 0;
  /** How often the service has read an execution (or its revision) from the store so far. */
  let executionReads = 0;
  /** Builds the service with streams that wait this long for a publication before reading the store anyway. */
  let serviceWith: (eventPollMs: number) => DurableExecutionService;
  const org = { tokenId: 'token-org', kind: 'org', userId: null } as const;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'crewd-follow-'));
    store = await openSqliteStore(join(dir, 'crewd.db'));
    await store.migrate();
    hub = new EventHub();
    listings = 0;
    executionReads = 0;
    serviceWith = (eventPollMs) =>
      new DurableExecutionService({
        crew: exampleCrew,
        store: {
          ...store,
          listEvents: (...args) => {
            listings += 1;
            return store.listEvents(...args);
          },
          getExecution: (...args) => {
            executionReads += 1;
            return store.getExecution(...args);
          },
          getExecutionRevision: (...args) => {
            executionReads += 1;
            return store.getExecutionRevision(...args);
          },
        },
        runner: { stop: () => {} } as unknown as ExecutionRunner,
        dispatcher: idleDispatcher,
        notifications: new Notifications(randomUUID),
        events: hub,
        clock: () => t0,
        newId: randomUUID,
        onCommitted: (execution, change) => hub.publish(execution, change),
        lease: { owner: 'this process', durationMs: 30_000 },
        eventPollMs,
      });
    service = serviceWith(1000);
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function running(): Promise<string> {
    const { execution } = await store.createExecution(newExecution());
    await store.applyChange({
      executionId: execution.id,
      fromStates: ['PENDING'],
      state: 'RUNNING',
      now: t0,
    });
    return execution.id;
  }

  /** An execution created with this process's lease, as a kickoff here creates it: the hub holds its log. */
  async function createdHere(owner: Caller = org): Promise<string> {
    const { execution } = await store.createExecution(
      newExecution({ owner: { tokenId: owner.tokenId, userId: owner.userId } }),
    );
    hub.created(execution);
    return execution.id;
  }

  /** Commits a change and publishes it, as a leg running in this process does. */
  async function commitHere(change: ExecutionChange): Promise<void> {
    hub.publish((await store.applyChange(change)) as Execution, change);
  }

  /** A change of state that logs one event of `type`, as a run's start and end do. */
  function transition(id: string, from: 'PENDING' | 'RUNNING', to: 'RUNNING' | 'SUCCESS', type: string) {
    return {
      executionId: id,
      fromStates: [from],
      state: to,
      events: [anyLogEntry(type, { state: to })],
      now: t0,
    } satisfies ExecutionChange;
  }
  const started = (id: string) => transition(id, 'PENDING', 'RUNNING', 'execution-start');
  const ending = (id: string) => transition(id, 'RUNNING', 'SUCCESS', 'execution-end');

  function steps(id: string, from: number, count: number): ExecutionChange {
    return {
      executionId: id,
      fromStates: ['RUNNING'],
      events: Array.from({ length: count }, (_, index) => anyLogEntry('step', { n: from + index })),
      now: t0,
    };
  }

  async function readAll(events: AsyncIterable<StoredExecutionEvent>): Promise<StoredExecutionEvent[]> {
    const read: StoredExecutionEvent[] = [];
    for await (const event of events) read.push(event);
    return read;
  }

  it('sends a log longer than one page of the store in order, then ends with the execution', async () => {
    const id = await running();
    for (let from = 1; from <= 1200; from += 300) await store.applyChange(steps(id, from, 300));
    await store.applyChange(ending(id));

    const events = await readAll(await service.openEventStream(id, org, 0, new AbortController().signal));

    expect(events).toHaveLength(1201);
    expect(events.map((event) => event.sequence)).toEqual(events.map((_, index) => index + 1));
    expect(events.at(-1)!.type).toBe('execution-end');
  });

  it('reads the store when a published change does not follow the last event sent, so none is skipped', async () => {
    const id = await running();
    const reading = readAll(await service.openEventStream(id, org, 0, new AbortController().signal));
    // The stream has listed the log while it was empty; what follows, it learns of from the hub.
    await until(() => listings === 1);

    // Another process writes events 1-2; this one then writes 3-4 and publishes only those.
    await store.applyChange(steps(id, 1, 2));
    const change = steps(id, 3, 2);
    const committed = (await store.applyChange(change)) as Execution;
    hub.publish(committed, change);
    const end = ending(id);
    hub.publish((await store.applyChange(end)) as Execution, end);

    const events = await reading;
    expect(events.map((event) => event.sequence)).toEqual([1, 2, 3, 4, 5]);
    expect(events.map((event) => event.data)).toEqual([
      { n: 1 },
      { n: 2 },
      { n: 3 },
      { n: 4 },
      { state: 'SUCCESS' },
    ]);
  });

  it('picks up events written only by another process, without any publication', async () => {
    const id = await running();
    const reading = readAll(await service.openEventStream(id, org, 0, new AbortController().signal));
    await until(() => listings === 1);

    await store.applyChange(steps(id, 1, 3));
    await store.applyChange(ending(id));

    // Found when the stream looks at the store again after its quiet spell (a second).
    expect((await reading).map((event) => event.sequence)).toEqual([1, 2, 3, 4]);
  });

  it("reads another process's events as soon as that process's notice nudges the stream", async () => {
    // The quiet spell outlasts the test: only the nudges explain the reads.
    service = serviceWith(3_600_000);
    const id = await running();
    const reading = readAll(await service.openEventStream(id, org, 0, new AbortController().signal));
    await until(() => listings === 1);

    await store.applyChange(steps(id, 1, 2));
    hub.nudge(id);
    await until(() => listings === 2);
    await store.applyChange(ending(id));
    // A lost notice is made good by a resync, which nudges every stream.
    hub.nudge();

    expect((await reading).map((event) => event.sequence)).toEqual([1, 2, 3]);
  });

  it('follows an execution running in this process from its first event without reading the store', async () => {
    const id = await createdHere();
    // Opened before the execution starts, as a client opens it right after its kickoff.
    const reading = readAll(await service.openEventStream(id, org, 0, new AbortController().signal));
    await commitHere(started(id));
    await commitHere(steps(id, 2, 2));
    await commitHere(ending(id));

    expect((await reading).map((event) => [event.sequence, event.type])).toEqual([
      [1, 'execution-start'],
      [2, 'step'],
      [3, 'step'],
      [4, 'execution-end'],
    ]);
    expect({ listings, executionReads }).toEqual({ listings: 0, executionReads: 0 });
  });

  it('sends the events committed before a stream opened mid-run, after its resume point, from memory', async () => {
    const id = await createdHere();
    await commitHere(started(id));
    await commitHere(steps(id, 2, 3));

    const fromStart = readAll(await service.openEventStream(id, org, 0, new AbortController().signal));
    const resumed = readAll(await service.openEventStream(id, org, 2, new AbortController().signal));
    await commitHere(ending(id));

    expect((await fromStart).map((event) => event.sequence)).toEqual([1, 2, 3, 4, 5]);
    expect((await resumed).map((event) => event.sequence)).toEqual([3, 4, 5]);
    expect((await resumed).map((event) => event.data)).toEqual([{ n: 3 }, { n: 4 }, { state: 'SUCCESS' }]);
    expect({ listings, executionReads }).toEqual({ listings: 0, executionReads: 0 });
  });

  it('answers another user as if an execution running in this process did not exist', async () => {
    const alice = { tokenId: 'token-alice', kind: 'user', userId: 'alice' } as const;
    const bob = { tokenId: 'token-bob', kind: 'user', userId: 'bob' } as const;
    const id = await createdHere(alice);
    await commitHere(started(id));

    await expect(service.openEventStream(id, bob, 0, new AbortController().signal)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const reading = readAll(await service.openEventStream(id, alice, 0, new AbortController().signal));
    await commitHere(ending(id));
    expect((await reading).map((event) => event.sequence)).toEqual([1, 2]);
  });

  it('reads the store for events another process wrote to an execution this one started', async () => {
    const id = await createdHere();
    await commitHere(started(id));
    // Another process takes the execution over: its notice nudges this one.
    await store.applyChange(steps(id, 2, 2));
    hub.nudge(id);

    const reading = readAll(await service.openEventStream(id, org, 0, new AbortController().signal));
    await until(() => listings === 1);
    await commitHere(ending(id));

    expect((await reading).map((event) => event.sequence)).toEqual([1, 2, 3, 4]);
  });
});
