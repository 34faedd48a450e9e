import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../src/domain/usage.ts';
import type { StoreHarness } from './store-harness.ts';
import { at, newExecution, t0, anyLogEntry } from './store-fixtures.ts';

export function describeExecutionStoreContract(harness: StoreHarness): void {
  describe('executions', () => {
    it('creates a PENDING execution holding its inputs, meta, webhooks and owner', async () => {
      const store = await harness.open();
      const webhooks = {
        taskUrl: 'https://hooks.example.com/task',
        stepUrl: null,
        crewUrl: 'https://hooks.example.com/crew',
        humanInput: {
          url: 'https://hooks.example.com/hi',
          authentication: { strategy: 'bearer', token: 's' },
        },
      } as const;
      const request = newExecution({
        inputs: { zeta: 1, alpha: { nested: [1, 'two'] } },
        webhooks,
        owner: { tokenId: 'token-user', userId: 'user-1' },
      });

      const result = await store.createExecution(request);

      const expected = {
        id: request.id,
        crew: null,
        crewVersion: null,
        state: 'PENDING',
        inputs: { zeta: 1, alpha: { nested: [1, 'two'] } },
        meta: { requester: 'tests' },
        webhooks,
        owner: { tokenId: 'token-user', userId: 'user-1' },
        outputs: [],
        feedback: [],
        pending: null,
        currentTask: null,
        lastStep: null,
        usage: emptyUsage,
        result: null,
        resultJson: null,
        error: null,
        createdAt: t0,
        updatedAt: t0,
        lastEventSequence: 0,
        revision: 0,
        startedAt: null,
        finishedAt: null,
      };
      expect(result).toEqual({ created: true, execution: expected });
      const stored = await store.getExecution(request.id);
      expect(stored).toEqual(expected);
      expect(Object.keys(stored!.inputs)).toEqual(['zeta', 'alpha']);
    });

    it('returns null for an unknown execution', async () => {
      const store = await harness.open();
      expect(await store.getExecution('no-such-execution')).toBeNull();
    });

    it('returns the existing execution and its request hash for a repeated owner token and idempotency key', async () => {
      const store = await harness.open();
      const first = newExecution({ idempotencyKey: 'key-1', requestHash: 'hash-1' });
      await store.createExecution(first);

      const again = await store.createExecution(
        newExecution({ idempotencyKey: 'key-1', requestHash: 'hash-2' }),
      );
      expect(again).toEqual({
        created: false,
        execution: await store.getExecution(first.id),
        requestHash: 'hash-1',
      });

      const otherToken = newExecution({
        idempotencyKey: 'key-1',
        owner: { tokenId: 'token-2', userId: null },
      });
      expect((await store.createExecution(otherToken)).created).toBe(true);
      expect((await store.createExecution(newExecution())).created).toBe(true);
      expect((await store.createExecution(newExecution())).created).toBe(true);
    });

    it('creates exactly one execution when one idempotency key arrives several times at once', async () => {
      const store = await harness.open();
      const results = await Promise.all(
        Array.from({ length: 5 }, () => store.createExecution(newExecution({ idempotencyKey: 'same' }))),
      );
      expect(results.filter((result) => result.created)).toHaveLength(1);
      expect(new Set(results.map((result) => result.execution.id)).size).toBe(1);
    });
  });

  describe('events', () => {
    it('numbers each execution’s events 1, 2, 3… across changes and lists them after a sequence', async () => {
      const store = await harness.open();
      const { execution } = await store.createExecution(newExecution());
      const { execution: other } = await store.createExecution(newExecution());
      const change = (now: Date, types: string[]) =>
        store.applyChange({
          executionId: execution.id,
          fromStates: ['PENDING'],
          events: types.map((type) => anyLogEntry(type, { type })),
          now,
        });
      expect((await change(at(1), ['execution-start', 'task-start']))?.lastEventSequence).toBe(2);
      expect((await change(at(2), []))?.lastEventSequence).toBe(2);
      await store.applyChange({
        executionId: other.id,
        fromStates: ['PENDING'],
        events: [anyLogEntry('execution-start', {})],
        now: at(2),
      });
      expect((await change(at(3), ['task-end']))?.lastEventSequence).toBe(3);
      expect((await store.getExecution(execution.id))?.lastEventSequence).toBe(3);

      const events = await store.listEvents(execution.id, 0, 10);
      expect(events).toEqual([
        {
          executionId: execution.id,
          sequence: 1,
          type: 'execution-start',
          data: { type: 'execution-start' },
          createdAt: at(1),
        },
        {
          executionId: execution.id,
          sequence: 2,
          type: 'task-start',
          data: { type: 'task-start' },
          createdAt: at(1),
        },
        {
          executionId: execution.id,
          sequence: 3,
          type: 'task-end',
          data: { type: 'task-end' },
          createdAt: at(3),
        },
      ]);
      expect((await store.listEvents(execution.id, 1, 1)).map((event) => event.sequence)).toEqual([2]);
      expect(await store.listEvents(execution.id, 3, 10)).toEqual([]);
      expect((await store.listEvents(other.id, 0, 10)).map((event) => event.sequence)).toEqual([1]);
    });
  });
}
