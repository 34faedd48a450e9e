import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.ts';
import { at, newExecution } from './store-fixtures.ts';
import type { StoreHarness } from './store-harness.ts';

export function describeExecutionFlowStateContract(harness: StoreHarness): void {
  describe('flow state ids', () => {
    /** A flow execution of `crew` under `stateId`, created at `at(second)`; `started` journals its state. */
    async function flowExecution(
      store: Store,
      options: { crew: string; stateId: string; second: number; userId?: string; started?: boolean },
    ): Promise<string> {
      const { execution } = await store.createExecution(
        newExecution({
          crew: options.crew,
          createdAt: at(options.second),
          flowStateId: options.stateId,
          owner: { tokenId: `token-${options.userId ?? 'org'}`, userId: options.userId ?? null },
        }),
      );
      if (options.started !== false) {
        await store.applyChange({
          executionId: execution.id,
          fromStates: ['PENDING'],
          state: 'RUNNING',
          appendFlowEntry: { kind: 'flow-started', state: { id: options.stateId, second: options.second } },
          now: at(options.second),
        });
      }
      return execution.id;
    }

    it("keeps a flow execution's state id and the state id it restores from", async () => {
      const store = await harness.open();
      const { execution } = await store.createExecution(
        newExecution({ crew: 'counter', flowStateId: 'fork', restoreStateFrom: 'trunk' }),
      );
      expect(execution).toMatchObject({ flowStateId: 'fork', restoreStateFrom: 'trunk' });
      expect(await store.getExecution(execution.id)).toMatchObject({
        flowStateId: 'fork',
        restoreStateFrom: 'trunk',
      });
      const { execution: crewRun } = await store.createExecution(newExecution({ crew: 'briefs' }));
      expect(crewRun.flowStateId).toBeUndefined();
      expect(crewRun.restoreStateFrom).toBeUndefined();
    });

    it('finds the newest earlier started execution of the crew under the state id, as the owner sees them', async () => {
      const store = await harness.open();
      const oldest = await flowExecution(store, { crew: 'counter', stateId: 'tally', second: 1 });
      const alices = await flowExecution(store, {
        crew: 'counter',
        stateId: 'tally',
        second: 2,
        userId: 'alice',
      });
      const bobs = await flowExecution(store, {
        crew: 'counter',
        stateId: 'tally',
        second: 3,
        userId: 'bob',
      });
      // Not started: nothing saved yet. Another crew's, another state id's: never.
      await flowExecution(store, { crew: 'counter', stateId: 'tally', second: 4, started: false });
      await flowExecution(store, { crew: 'other', stateId: 'tally', second: 5 });
      await flowExecution(store, { crew: 'counter', stateId: 'other', second: 6 });
      const later = await flowExecution(store, { crew: 'counter', stateId: 'tally', second: 8 });

      const before = { createdAt: at(7), id: 'restoring' };
      const latest = (query: { userId?: string; before?: typeof before; crew?: string; stateId?: string }) =>
        store.latestFlowState({ crew: 'counter', stateId: 'tally', before, ...query });

      const forOrganization = await latest({});
      expect(forOrganization?.id).toBe(bobs);
      expect(forOrganization?.flowJournal).toEqual([
        { kind: 'flow-started', state: { id: 'tally', second: 3 } },
      ]);
      expect((await latest({ userId: 'alice' }))?.id).toBe(alices);
      expect((await latest({ userId: 'bob' }))?.id).toBe(bobs);
      expect(await latest({ userId: 'carol' })).toBeNull();
      expect((await latest({ before: { createdAt: at(2), id: alices } }))?.id).toBe(oldest);
      // Only executions created before the one restoring: never itself, nor one kicked off after it.
      expect((await latest({ before: { createdAt: at(8), id: later } }))?.id).toBe(bobs);
      expect((await latest({ before: { createdAt: at(9), id: 'restoring' } }))?.id).toBe(later);
      expect(await latest({ stateId: 'missing' })).toBeNull();
      expect(await latest({ crew: 'absent' })).toBeNull();
    });
  });
}
