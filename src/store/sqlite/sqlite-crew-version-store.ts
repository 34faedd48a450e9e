import type { CrewFiles, CrewVersionRecord, CrewVersionStore } from '../store.ts';
import type { Row } from '../row-decoder.ts';
import type { SqliteContext } from './sqlite-context.ts';
import { settle } from './sqlite-context.ts';

const selectByHash = 'SELECT crew, version, hash, created_at FROM crew_versions WHERE crew = ? AND hash = ?';
// One writer at a time: the next number is read and taken in the same transaction.
const insertNext = `
  INSERT INTO crew_versions (crew, version, hash, files, created_at)
  SELECT :crew, coalesce(max(version), 0) + 1, :hash, :files, :now FROM crew_versions WHERE crew = :crew
  RETURNING crew, version, hash, created_at`;
const selectFiles = 'SELECT files FROM crew_versions WHERE crew = ? AND version = ?';
const selectAll = 'SELECT crew, version, hash, created_at FROM crew_versions WHERE crew = ? ORDER BY version';
const selectServed = 'SELECT version, deployed_version FROM served_crews WHERE crew = ?';
const deployServed = `
  INSERT INTO served_crews (crew, version, deployed_version, updated_at)
  SELECT :crew, :version, :version, :now
  WHERE EXISTS (SELECT 1 FROM crew_versions WHERE crew = :crew AND version = :version)
  ON CONFLICT (crew) DO UPDATE SET version = excluded.version, deployed_version = excluded.deployed_version,
    updated_at = excluded.updated_at`;
const rollServed = `
  UPDATE served_crews SET version = :version, updated_at = :now
  WHERE crew = :crew AND EXISTS (SELECT 1 FROM crew_versions WHERE crew = :crew AND version = :version)`;

const deleteUnused = `
  DELETE FROM crew_versions AS kept
  WHERE created_at < :before
    AND NOT EXISTS (SELECT 1 FROM executions WHERE crew = kept.crew AND crew_version = kept.version)
    AND NOT EXISTS (SELECT 1 FROM served_crews AS served WHERE served.crew = kept.crew
      AND kept.version IN (served.version, served.deployed_version))`;

export function sqliteCrewVersionStore({ statement, writes }: SqliteContext): CrewVersionStore {
  return {
    saveCrewVersion: (crew, hash, files, now) =>
      writes.write(() => {
        const existing = statement(selectByHash).get(crew, hash);
        if (existing !== undefined) return { record: versionRecord(existing), created: false };
        const row = statement(insertNext).get({
          crew,
          hash,
          files: JSON.stringify(files),
          now: now.toISOString(),
        });
        if (row === undefined) throw new Error('The crew version was not inserted');
        return { record: versionRecord(row), created: true };
      }),

    crewVersionFiles: (crew, version) =>
      settle(() => {
        const row = statement(selectFiles).get(crew, version);
        return row === undefined ? null : (JSON.parse(row.files as string) as CrewFiles);
      }),

    listCrewVersions: (crew) =>
      settle(() =>
        statement(selectAll)
          .all(crew)
          .map((row) => versionRecord(row)),
      ),

    servedCrewVersion: (crew) =>
      settle(() => {
        const row = statement(selectServed).get(crew);
        return row === undefined
          ? null
          : { version: Number(row.version), deployed: Number(row.deployed_version) };
      }),

    deleteUnusedCrewVersions: (before) =>
      writes.write(() => statement(deleteUnused).run({ before: before.toISOString() }).changes),

    serveCrewVersion: (crew, version, now, deployed = false) =>
      writes.write(
        () =>
          statement(deployed ? deployServed : rollServed).run({ crew, version, now: now.toISOString() })
            .changes > 0,
      ),
  };
}

function versionRecord(row: Row): CrewVersionRecord {
  return {
    crew: row.crew as string,
    version: Number(row.version),
    hash: row.hash as string,
    createdAt: new Date(row.created_at as string),
  };
}
