import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Execution } from '../../src/domain/execution.ts';
import { DurableExecutionService } from '../../src/service/durable-execution-service.ts';
import { EventHub } from '../../src/service/event-hub.ts';
import type { ExecutionRunner } from '../../src/service/execution-runner.ts';
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
  /** Builds the service with streams that wait this long for a publication before reading the store anyway. */
  let serviceWith: (eventPollMs: number) => DurableExecutionService;
  const org = { tokenId: 'token-org', kind: 'org', userId: null } as const;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'crewd-follow-'));
    store = await openSqliteStore(join(dir, 'crewd.db'));
    await store.migrate();
    hub = new EventHub();
    listings = 0;
    serviceWith = (eventPollMs) =>
      new DurableExecutionService({
        crew: exampleCrew,
        store: {
          ...store,
          listEvents: (...args) => {
            listings += 1;
            return store.listEvents(...args);
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

  function steps(id: string, from: number, count: number): ExecutionChange {
    return {
      executionId: id,
      fromStates: ['RUNNING'],
      events: Array.from({ length: count }, (_, index) => anyLogEntry('step', { n: from + index })),
      now: t0,
    };
  }

  function ending(id: string): ExecutionChange {
    return {
      executionId: id,
      fromStates: ['RUNNING'],
      state: 'SUCCESS',
      events: [anyLogEntry('execution-end', { state: 'SUCCESS' })],
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
});
