import { describe, expect, it } from 'vitest';
import type { StoreHarness } from './store-harness.ts';
import { noWebhooks } from '../../src/domain/execution.ts';
import { at, newExecution, tokenRecord } from './store-fixtures.ts';

/** Executions and tokens of named crews, and crew versions. */
export function describeCrewStoreContract(harness: StoreHarness): void {
  describe('crews', () => {
    it('keeps the crews a token is limited to', async () => {
      const store = await harness.open();
      const limited = tokenRecord({ crews: ['notes', 'briefs'] });
      expect(await store.createToken(limited)).toEqual(limited);
      expect((await store.findActiveToken(limited.hash))?.crews).toEqual(['notes', 'briefs']);
    });

    it("records an execution's crew and version, lists by crew, and names crewless ones once", async () => {
      const store = await harness.open();
      const older = await store.createExecution(newExecution({ createdAt: at(1) }));
      const notes = await store.createExecution({
        ...newExecution({ createdAt: at(2) }),
        crew: 'notes',
        crewVersion: 3,
      });
      await store.createExecution({ ...newExecution({ createdAt: at(3) }), crew: 'briefs', crewVersion: 1 });
      expect(notes.execution).toMatchObject({ crew: 'notes', crewVersion: 3 });

      expect(await store.assignCrewless('notes')).toBe(1);
      expect(await store.assignCrewless('notes')).toBe(0);
      const page = await store.listExecutions({ limit: 10, crews: ['notes'] });
      expect(page.items.map((item) => item.id)).toEqual([notes.execution.id, older.execution.id]);
      const both = await store.listExecutions({ limit: 10, crews: ['notes', 'briefs'] });
      expect(both.items).toHaveLength(3);
    });

    it("gives the schedules and triggers kept under a crew's own name to the name it is served as", async () => {
      const store = await harness.open();
      const schedule = {
        id: 'schedule-1',
        crew: 'Research Crew',
        name: null,
        cron: '0 3 * * *',
        timezone: 'UTC',
        inputs: {},
        meta: null,
        webhooks: noWebhooks,
        paused: false,
        owner: { tokenId: 'token-1', kind: 'org' as const, userId: null },
        createdAt: at(1),
        lastDueAt: null,
      };
      await store.createSchedule(schedule);
      await store.createSchedule({ ...schedule, id: 'schedule-2', crew: 'other' });
      const trigger = {
        name: 'orders',
        crew: 'Research Crew',
        secret: 'whsec_x',
        inputs: {},
        createdAt: at(1),
      };
      await store.createTrigger(trigger);
      await store.createTrigger({ ...trigger, name: 'any', crew: null });

      expect(await store.moveCrewSchedules('Research Crew', 'research')).toBe(2);
      expect(await store.moveCrewSchedules('Research Crew', 'research')).toBe(0);
      expect((await store.listSchedules('research')).map((kept) => kept.id)).toEqual(['schedule-1']);
      expect((await store.listSchedules('other')).map((kept) => kept.id)).toEqual(['schedule-2']);
      expect((await store.findTrigger('orders'))?.crew).toBe('research');
      expect((await store.findTrigger('any'))?.crew).toBeNull();
    });

    it('keeps versions by content: the same files are the same version, numbered per crew', async () => {
      const store = await harness.open();
      const first = await store.saveCrewVersion('notes', 'hash-a', { 'agents.yaml': 'a: 1\n' }, at(1));
      const again = await store.saveCrewVersion('notes', 'hash-a', { 'agents.yaml': 'a: 1\n' }, at(2));
      const second = await store.saveCrewVersion('notes', 'hash-b', { 'agents.yaml': 'a: 2\n' }, at(3));
      const other = await store.saveCrewVersion('briefs', 'hash-a', { 'agents.yaml': 'a: 1\n' }, at(4));
      expect([first.created, again.created, second.created, other.created]).toEqual([
        true,
        false,
        true,
        true,
      ]);
      expect([first.record.version, again.record.version, second.record.version]).toEqual([1, 1, 2]);
      expect(other.record.version).toBe(1);
      expect(await store.crewVersionFiles('notes', 2)).toEqual({ 'agents.yaml': 'a: 2\n' });
      expect(await store.crewVersionFiles('notes', 9)).toBeNull();
      expect(await store.listCrewVersions('notes')).toEqual([
        { crew: 'notes', version: 1, hash: 'hash-a', createdAt: at(1) },
        { crew: 'notes', version: 2, hash: 'hash-b', createdAt: at(3) },
      ]);

      expect(await store.servedCrewVersion('notes')).toBeNull();
      expect(await store.serveCrewVersion('notes', 1, at(5))).toBe(false);
      expect(await store.serveCrewVersion('notes', 2, at(5), true)).toBe(true);
      expect(await store.serveCrewVersion('notes', 1, at(6))).toBe(true);
      expect(await store.serveCrewVersion('notes', 7, at(7))).toBe(false);
      expect(await store.serveCrewVersion('notes', 7, at(7), true)).toBe(false);
      expect(await store.servedCrewVersion('notes')).toEqual({ version: 1, deployed: 2 });
    });

    it('deletes versions past the cutoff that no execution uses and that are neither served nor deployed last', async () => {
      const store = await harness.open();
      for (const [index, name] of ['a', 'b', 'c', 'd'].entries()) {
        await store.saveCrewVersion('notes', `hash-${name}`, { name }, at(index));
      }
      await store.serveCrewVersion('notes', 4, at(5), true);
      await store.serveCrewVersion('notes', 3, at(6));
      await store.createExecution({ ...newExecution(), crew: 'notes', crewVersion: 1 });

      expect(await store.deleteUnusedCrewVersions(at(3))).toBe(1);
      expect((await store.listCrewVersions('notes')).map((record) => record.version)).toEqual([1, 3, 4]);
      expect(await store.deleteUnusedCrewVersions(at(9))).toBe(0);
    });

    it('numbers versions saved from two stores at once without a gap or a repeat', async () => {
      const [one, two] = [await harness.open(), await harness.open()];
      const saved = await Promise.all(
        ['a', 'b', 'c', 'd'].map((name, index) =>
          (index % 2 === 0 ? one : two).saveCrewVersion('notes', `hash-${name}`, { name }, at(index)),
        ),
      );
      expect(saved.map((entry) => entry.record.version).sort()).toEqual([1, 2, 3, 4]);
    });
  });
}
