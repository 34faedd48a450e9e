import path from 'node:path';
import {
  hashCrewSnapshot,
  readCrewSnapshot,
  writeCrewSnapshot,
  type CrewSnapshot,
} from '../crew/crew-snapshot.ts';
import type { CrewDefinition } from '../domain/crew.ts';
import type { CrewDeployer, CrewVersionListing, CrewVersionSource } from '../service/crew-version-source.ts';
import { CrewdError, isCrewdError } from '../domain/errors.ts';
import type { RunnableUnit } from '../service/runnable-unit.ts';
import type { CrewVersionStore } from '../store/store.ts';
import type { ToolSourceStatus } from '../tools/tool-source.ts';

/** What versions need of an opened crew or flow: its tool sources' state, and closing it. */
export interface ServedRuntime {
  readonly tools: { statuses(): readonly ToolSourceStatus[] };
  close(): Promise<void>;
}

export interface CrewVersionsOptions<Runtime extends ServedRuntime = ServedRuntime> {
  /** The served crew's name. */
  readonly name: string;
  /** Its directory: new versions are read from it. */
  readonly dir: string;
  readonly store: CrewVersionStore;
  readonly clock: () => Date;
  /** Where versions loaded from the store are written out as crew directories to run from. */
  readonly copiesRoot: string;
  /** Opens a crew directory for running (and checks it can run). */
  readonly open: (dir: string) => Promise<Runtime>;
  /** What the runner needs of an opened crew. */
  readonly runnable: (runtime: Runtime) => RunnableUnit;
  /** How long the version served, as read from the store, is trusted before it is read again (default 1 s). */
  readonly servedCheckMs?: number;
  /** Told when a version could not be loaded (its executions wait, their status shows the current crew). */
  readonly onLoadFailed?: (version: number, error: unknown) => void;
}

/** A served crew's or flow's versions, whatever runtime opens them: what the server uses of them. */
export interface ServedVersions extends CrewVersionSource, CrewVersionListing, CrewDeployer {
  readonly servedVersion: number;
  runnableOf(version: number | null | undefined): Promise<RunnableUnit | undefined>;
  deployAgain(): Promise<{ readonly version: number; readonly created: boolean }>;
  statuses(): readonly ToolSourceStatus[];
  close(): Promise<void>;
}

interface Loaded<Runtime extends ServedRuntime> {
  readonly runtime: Runtime;
  readonly runnable: RunnableUnit;
}

/**
 * One served crew's versions in this process. A version is the crew's files as they were when deployed, kept in
 * the store: each execution records the version it started on and runs, pauses and resumes on it, while new
 * kickoffs take the version served now (a later deploy, or a rollback from any process). A version this process
 * has not loaded is read from the store, written out as a directory and opened, once.
 */
export class CrewVersions<Runtime extends ServedRuntime = ServedRuntime> implements ServedVersions {
  readonly #loading = new Map<number, Promise<Loaded<Runtime>>>();
  readonly #loaded = new Map<number, Loaded<Runtime>>();
  #served: number;
  #checkedAt: number;

  private constructor(
    private readonly options: CrewVersionsOptions<Runtime>,
    version: number,
    loaded: Loaded<Runtime>,
  ) {
    this.#loaded.set(version, loaded);
    this.#loading.set(version, Promise.resolve(loaded));
    this.#served = version;
    this.#checkedAt = options.clock().getTime();
  }

  /**
   * Keeps the crew's files as a version (the same files as a kept version are that version) and opens it from its
   * directory. Files other than those deployed last become the served version; the same files leave the version
   * served as it is, so a rollback holds across restarts until the files change.
   */
  static async deploy<Runtime extends ServedRuntime>(
    options: CrewVersionsOptions<Runtime>,
  ): Promise<CrewVersions<Runtime>> {
    const files = await readCrewSnapshot(options.dir);
    // Opened before it is kept, so files that do not load leave no version behind.
    const runtime = await options.open(options.dir);
    let versions: CrewVersions<Runtime> | undefined;
    try {
      const { version } = await saveVersion(options, files);
      versions = new CrewVersions(options, version, { runtime, runnable: options.runnable(runtime) });
      const served = await options.store.servedCrewVersion(options.name);
      if (served === null || served.deployed !== version) {
        await options.store.serveCrewVersion(options.name, version, options.clock(), true);
      } else if (served.version !== version) {
        await versions.#serve(served.version);
      }
    } catch (error) {
      await (versions === undefined ? runtime.close() : versions.close());
      throw error;
    }
    return versions;
  }

  get current(): CrewDefinition {
    return this.#loaded.get(this.#served)!.runnable.crew;
  }

  /** The version new kickoffs start on now. */
  get servedVersion(): number {
    return this.#served;
  }

  async versionForKickoff(): ReturnType<CrewVersionSource['versionForKickoff']> {
    const now = this.options.clock().getTime();
    if (now - this.#checkedAt >= (this.options.servedCheckMs ?? 1000)) {
      const served = await this.options.store.servedCrewVersion(this.options.name);
      this.#checkedAt = now;
      if (served !== null && served.version !== this.#served) await this.#serve(served.version);
    }
    return { version: this.#served, crew: this.current, unit: this.#loaded.get(this.#served)!.runnable };
  }

  async load(version: number): Promise<void> {
    try {
      await this.runnableOf(version);
    } catch (error) {
      this.options.onLoadFailed?.(version, error);
    }
  }

  definitionOf(version: number | null | undefined): CrewDefinition {
    return this.unitOf(version).crew;
  }

  unitOf(version: number | null | undefined): RunnableUnit {
    const loaded = version === null || version === undefined ? undefined : this.#loaded.get(version);
    return loaded?.runnable ?? this.#loaded.get(this.#served)!.runnable;
  }

  /** The version ready to run; executions from before versions were kept run on the served one. */
  async runnableOf(version: number | null | undefined): Promise<RunnableUnit | undefined> {
    if (version === null || version === undefined) return this.#loaded.get(this.#served)!.runnable;
    let loading = this.#loading.get(version);
    if (loading === undefined) {
      loading = this.#open(version);
      this.#loading.set(version, loading);
      // Tried again at the next need rather than failing for good.
      loading.catch(() => this.#loading.delete(version));
    }
    return (await loading).runnable;
  }

  /**
   * Keeps the directory's files as they are now, and serves them when they changed: the version in-flight
   * executions run on stays loaded. Returns the version and whether it was new.
   */
  async deployAgain(): Promise<{ readonly version: number; readonly created: boolean }> {
    const files = await readCrewSnapshot(this.options.dir);
    const runtime = await this.options.open(this.options.dir);
    const saved = await this.#keep(runtime, files);
    const served = await this.options.store.servedCrewVersion(this.options.name);
    if (served === null || served.deployed !== saved.version) {
      await this.options.store.serveCrewVersion(this.options.name, saved.version, this.options.clock(), true);
      this.#served = saved.version;
    }
    return saved;
  }

  /**
   * Keeps `files` as a version, with the runtime opened on them as that version's (or closes the runtime when the
   * version is loaded already); the runtime is closed when the version cannot be kept.
   */
  async #keep(
    runtime: Runtime,
    files: CrewSnapshot,
  ): Promise<{ readonly version: number; readonly created: boolean }> {
    let saved: { readonly version: number; readonly created: boolean };
    try {
      saved = await saveVersion(this.options, files);
    } catch (error) {
      await runtime.close();
      throw error;
    }
    if (this.#loaded.has(saved.version)) {
      await runtime.close();
    } else {
      const loaded = { runtime, runnable: this.options.runnable(runtime) };
      this.#loaded.set(saved.version, loaded);
      this.#loading.set(saved.version, Promise.resolve(loaded));
    }
    return saved;
  }

  /**
   * Files sent by `crewd deploy`: written out, opened (refused, keeping nothing, when they do not load), kept as a
   * version and served to new kickoffs.
   */
  async deploy(files: CrewSnapshot): Promise<{ readonly version: number; readonly created: boolean }> {
    const hash = hashCrewSnapshot(files);
    const dir = path.join(this.options.copiesRoot, this.options.name, hash);
    await writeCrewSnapshot(dir, files);
    let runtime: Runtime;
    try {
      runtime = await this.options.open(dir);
    } catch (error) {
      // Said in the crew's own terms: file names relative to the crew, never where this server keeps it.
      const said = isCrewdError(error) ? error.message : 'The crew does not load';
      throw new CrewdError(
        'VALIDATION_ERROR',
        said.replaceAll(`${dir}${path.sep}`, '').replaceAll(dir, '.'),
        {
          cause: error,
        },
      );
    }
    const saved = await this.#keep(runtime, files);
    await this.options.store.serveCrewVersion(this.options.name, saved.version, this.options.clock(), true);
    this.#served = saved.version;
    return saved;
  }

  async list(): ReturnType<CrewVersionListing['list']> {
    const [served, versions] = await Promise.all([
      this.options.store.servedCrewVersion(this.options.name),
      this.options.store.listCrewVersions(this.options.name),
    ]);
    return { served: served?.version ?? this.#served, versions };
  }

  /** Tool sources of every version loaded here. */
  statuses(): ReturnType<ServedRuntime['tools']['statuses']> {
    return [...this.#loaded.values()].flatMap((loaded) => loaded.runtime.tools.statuses());
  }

  async close(): Promise<void> {
    const loaded = [...this.#loaded.values()];
    this.#loaded.clear();
    this.#loading.clear();
    await Promise.all(loaded.map((one) => one.runtime.close()));
  }

  async #serve(version: number): Promise<void> {
    await this.runnableOf(version);
    this.#served = version;
  }

  async #open(version: number): Promise<Loaded<Runtime>> {
    const files = await this.options.store.crewVersionFiles(this.options.name, version);
    if (files === null) throw new Error(`The crew ${this.options.name} has no version ${version}`);
    const dir = path.join(this.options.copiesRoot, this.options.name, hashCrewSnapshot(files));
    await writeCrewSnapshot(dir, files);
    const runtime = await this.options.open(dir);
    const loaded = { runtime, runnable: this.options.runnable(runtime) };
    this.#loaded.set(version, loaded);
    return loaded;
  }
}

async function saveVersion(
  options: Pick<CrewVersionsOptions, 'name' | 'store' | 'clock'>,
  files: CrewSnapshot,
): Promise<{ readonly version: number; readonly created: boolean }> {
  const { record, created } = await options.store.saveCrewVersion(
    options.name,
    hashCrewSnapshot(files),
    files,
    options.clock(),
  );
  return { version: record.version, created };
}
