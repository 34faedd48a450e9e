import type { CrewDefinition } from '../domain/crew.ts';
import type { CrewVersionRecord } from '../store/store.ts';
import type { RunnableUnit } from './runnable-unit.ts';

/**
 * The versions of one served crew, as the execution service sees them: each execution runs, pauses and resumes on
 * the version it started on, while new kickoffs take the version served now.
 */
export interface CrewVersionSource {
  /** The crew new kickoffs run on, as last known here. */
  readonly current: CrewDefinition;
  /** The version new kickoffs start on now (another process may have changed it), loaded. */
  versionForKickoff(): Promise<{
    readonly version: number;
    readonly crew: CrewDefinition;
    /** The crew or flow itself: what its kickoff inputs are checked against. */
    readonly unit: RunnableUnit;
  }>;
  /** Loads the version (from the store when this process has not), so `definitionOf` answers for it. */
  load(version: number): Promise<void>;
  /** The version's crew once loaded; the current crew for executions from before versions were kept. */
  definitionOf(version: number | null | undefined): CrewDefinition;
  /** The version's crew or flow once loaded (the current one for executions from before versions were kept). */
  unitOf(version: number | null | undefined): RunnableUnit;
}

/** A served crew's versions as operators list them. */
export interface CrewVersionListing {
  list(): Promise<{
    /** The version new kickoffs use. */
    readonly served: number;
    readonly versions: readonly CrewVersionRecord[];
  }>;
}

/** Deploys a crew's files (`crewd deploy`) as a version served to new kickoffs. */
export interface CrewDeployer {
  /** Rejects with a `CrewdError` saying why when the files do not load as a crew; nothing is kept then. */
  deploy(
    files: Readonly<Record<string, string>>,
  ): Promise<{ readonly version: number; readonly created: boolean }>;
}
