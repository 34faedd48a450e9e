import type { CrewFiles, CrewVersionRecord, CrewVersionStore } from '../store.ts';
import type { Row } from '../row-decoder.ts';
import { namedQuery } from './named-query.ts';
import type { PostgresContext } from './postgres-context.ts';

const selectByHash = namedQuery(
  'select_crew_version_by_hash',
  'SELECT crew, version, hash, created_at FROM crew_versions WHERE crew = :crew AND hash = :hash',
);
// Saves from several processes at once take turns per crew: the lock holds until the transaction ends.
const insertNext = namedQuery(
  'insert_crew_version',
  `WITH locked AS (SELECT pg_advisory_xact_lock(hashtext('crewd crew version ' || :crew::text)))
   INSERT INTO crew_versions (crew, version, hash, files, created_at)
   SELECT :crew::text, coalesce(max(version), 0) + 1, :hash::text, :files::json, :now::timestamptz
   FROM crew_versions, locked WHERE crew = :crew::text
   ON CONFLICT DO NOTHING
   RETURNING crew, version, hash, created_at`,
);
const selectFiles = namedQuery(
  'select_crew_version_files',
  'SELECT files FROM crew_versions WHERE crew = :crew AND version = :version::integer',
);
const selectAll = namedQuery(
  'select_crew_versions',
  'SELECT crew, version, hash, created_at FROM crew_versions WHERE crew = :crew ORDER BY version',
);
const selectServed = namedQuery(
  'select_served_crew',
  'SELECT version, deployed_version FROM served_crews WHERE crew = :crew',
);
const deployServed = namedQuery(
  'deploy_crew_version',
  `INSERT INTO served_crews (crew, version, deployed_version, updated_at)
   SELECT :crew::text, :version::integer, :version::integer, :now::timestamptz
   WHERE EXISTS (SELECT 1 FROM crew_versions WHERE crew = :crew::text AND version = :version::integer)
   ON CONFLICT (crew) DO UPDATE SET version = excluded.version, deployed_version = excluded.deployed_version,
     updated_at = excluded.updated_at
   RETURNING crew`,
);
const rollServed = namedQuery(
  'roll_crew_version',
  `UPDATE served_crews SET version = :version::integer, updated_at = :now::timestamptz
   WHERE crew = :crew::text
     AND EXISTS (SELECT 1 FROM crew_versions WHERE crew = :crew::text AND version = :version::integer)
   RETURNING crew`,
);

const deleteUnused = namedQuery(
  'delete_unused_crew_versions',
  `DELETE FROM crew_versions AS kept
   WHERE created_at < :before::timestamptz
     AND NOT EXISTS (SELECT 1 FROM executions WHERE crew = kept.crew AND crew_version = kept.version)
     AND NOT EXISTS (SELECT 1 FROM served_crews AS served WHERE served.crew = kept.crew
       AND kept.version IN (served.version, served.deployed_version))
   RETURNING version`,
);

export function postgresCrewVersionStore({ query }: PostgresContext): CrewVersionStore {
  return {
    saveCrewVersion: async (crew, hash, files, now) => {
      for (;;) {
        const [existing] = await query(selectByHash, { crew, hash });
        if (existing !== undefined) return { record: versionRecord(existing), created: false };
        const [inserted] = await query(insertNext, {
          crew,
          hash,
          files: JSON.stringify(files),
          now: now.toISOString(),
        });
        if (inserted !== undefined) return { record: versionRecord(inserted), created: true };
        // Another process saved a version meanwhile: these files again (read back), or others (numbered after).
      }
    },

    crewVersionFiles: async (crew, version) => {
      const [row] = await query(selectFiles, { crew, version });
      return row === undefined ? null : (row.files as CrewFiles);
    },

    listCrewVersions: async (crew) => (await query(selectAll, { crew })).map((row) => versionRecord(row)),

    servedCrewVersion: async (crew) => {
      const [row] = await query(selectServed, { crew });
      return row === undefined
        ? null
        : { version: Number(row.version), deployed: Number(row.deployed_version) };
    },

    deleteUnusedCrewVersions: async (before) =>
      (await query(deleteUnused, { before: before.toISOString() })).length,

    serveCrewVersion: async (crew, version, now, deployed = false) =>
      (await query(deployed ? deployServed : rollServed, { crew, version, now: now.toISOString() })).length >
      0,
  };
}

function versionRecord(row: Row): CrewVersionRecord {
  return {
    crew: row.crew as string,
    version: Number(row.version),
    hash: row.hash as string,
    createdAt: row.created_at instanceof Date ? row.created_at : new Date(row.created_at as string),
  };
}
