import { describe, expect, it } from 'vitest';
import type { StoreHarness } from './store-harness.ts';
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
