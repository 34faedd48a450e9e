import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { CrewLoadError } from '../domain/errors.ts';

/** A crew file: where it is, and the name messages use for it (relative to the crew directory). */
export interface CrewFile {
  readonly path: string;
  readonly name: string;
  /** agents.yaml or tasks.yaml that is not there: a crew.py script builds its agents and tasks itself. */
  readonly missing?: true;
}

export interface CrewFiles {
  /** The crew directory, absolute. */
  readonly root: string;
  readonly agents: CrewFile;
  readonly tasks: CrewFile;
  readonly crew: CrewFile | undefined;
  /** A crewAI project's crew.py (the `@CrewBase` class, or a script), beside the `config/` folder. */
  readonly python: CrewFile | undefined;
  /** The crew class `--crew` names, when it names no crew folder of the project (`--crew <ClassName>`). */
  readonly crewClass?: string;
}

/**
 * Finds a crew's files. `dir` is either the folder holding agents.yaml and tasks.yaml, a crewAI package
 * folder (`config/agents.yaml`), or a crewAI project root (`src/<package>/config/agents.yaml`, or a Flow's
 * `src/<package>/crews/<crew>/config/agents.yaml`). `crewName` chooses among a project's crews.
 * crew.yaml may sit in `dir` itself or beside the other two.
 */
export async function locateCrewFiles(dir: string, crewName?: string): Promise<CrewFiles> {
  const root = path.resolve(dir);
  const kind = await entryKind(root);
  if (kind === 'missing') throw new CrewLoadError(dir, 'crew directory not found');
  if (kind !== 'directory') throw new CrewLoadError(dir, 'is not a directory');

  const { configDir, crewClass } = await findConfigDir(root, crewName);
  const file = (absolute: string): CrewFile => ({
    path: absolute,
    name: path.relative(root, absolute).split(path.sep).join('/'),
  });
  const python = await findCrewPy(configDir, file);
  const [agents, tasks] = [
    file(path.join(configDir, 'agents.yaml')),
    file(path.join(configDir, 'tasks.yaml')),
  ];
  const yamlFiles: CrewFile[] = [];
  for (const required of [agents, tasks]) {
    if ((await entryKind(required.path)) === 'file') yamlFiles.push(required);
    // A script crew.py with no config/ builds its agents and tasks itself.
    else if (python !== undefined) yamlFiles.push({ ...required, missing: true });
    else throw new CrewLoadError(required.name, 'file not found');
  }

  let crew: CrewFile | undefined;
  for (const candidate of new Set([root, configDir])) {
    const crewPath = path.join(candidate, 'crew.yaml');
    if ((await entryKind(crewPath)) === 'file') {
      crew = file(crewPath);
      break;
    }
  }
  const [agentsFile = agents, tasksFile = tasks] = yamlFiles;
  return {
    root,
    agents: agentsFile,
    tasks: tasksFile,
    crew,
    python,
    ...(crewClass === undefined ? {} : { crewClass }),
  };
}

/**
 * crew.py sits in the package folder above `config/`; crews inside a Flow name it after the crew
 * (`crews/poem_crew/poem_crew.py`), so any Python file there with a `@CrewBase` class will do.
 */
async function findCrewPy(
  configDir: string,
  file: (absolute: string) => CrewFile,
): Promise<CrewFile | undefined> {
  const packageDir = path.basename(configDir) === 'config' ? path.dirname(configDir) : configDir;
  const preferred = path.join(packageDir, 'crew.py');
  if ((await entryKind(preferred)) === 'file') return file(preferred);
  let names: string[];
  try {
    names = (await readdir(packageDir)).filter((name) => name.endsWith('.py')).sort();
  } catch {
    return undefined;
  }
  for (const name of names) {
    const candidate = path.join(packageDir, name);
    try {
      if (/CrewBase|\bCrew\(/.test(await readFile(candidate, 'utf8'))) return file(candidate);
    } catch {
      // Unreadable: not a crew file crewd can use.
    }
  }
  return undefined;
}

/** Whether the crew.py of the crew in `configDir` defines a class named `name` (read as text: a cheap first look). */
async function definesClass(configDir: string, name: string): Promise<boolean> {
  const python = await findCrewPy(configDir, (absolute) => ({ path: absolute, name: absolute }));
  if (python === undefined || !/^[A-Za-z_]\w*$/.test(name)) return false;
  try {
    return new RegExp(`^class\\s+${name}\\b`, 'm').test(await readFile(python.path, 'utf8'));
  } catch {
    return false;
  }
}

/** A crew found in a crewAI project: a package's `config/`, or a Flow's `crews/<name>/config/`. */
interface FoundCrew {
  readonly name: string;
  readonly configDir: string;
}

/**
 * The config folder of the crew to load. `--crew` names a crew folder of the project, or else a crew class of the
 * one crew there is (several `@CrewBase` classes in one crew.py), which crew.py's reader then picks.
 */
async function findConfigDir(
  root: string,
  crewName: string | undefined,
): Promise<{ configDir: string; crewClass?: string }> {
  for (const candidate of [root, path.join(root, 'config')]) {
    if (await holdsCrewFiles(candidate)) {
      return { configDir: candidate, ...(crewName === undefined ? {} : { crewClass: crewName }) };
    }
  }
  const found = await projectCrews(root);
  if (crewName !== undefined) {
    const chosen = found.find((crew) => crew.name === crewName);
    if (chosen !== undefined) return { configDir: chosen.configDir };
    const [only, other] = found;
    if (only !== undefined && other === undefined) return { configDir: only.configDir, crewClass: crewName };
    // A class of one of the crews' Python files (a Flow crew whose file holds several classes).
    const holding: FoundCrew[] = [];
    for (const crew of found) if (await definesClass(crew.configDir, crewName)) holding.push(crew);
    const [holder, secondHolder] = holding;
    if (holder !== undefined && secondHolder === undefined) {
      return { configDir: holder.configDir, crewClass: crewName };
    }
    const known =
      found.length === 0 ? 'it holds no crews' : `its crews are ${found.map((crew) => crew.name).join(', ')}`;
    throw new CrewLoadError('src', `holds no crew named "${crewName}"; ${known}`);
  }
  if (found.length > 1) {
    const names = found.map((crew) => crew.name).join(', ');
    throw new CrewLoadError('src', `holds several crews (${names}); choose one with --crew <name>`);
  }
  const [crew] = found;
  if (crew === undefined) {
    throw new CrewLoadError(
      'agents.yaml',
      'file not found (looked in ., config/, src/<package>/config/ and src/<package>/crews/<crew>/config/)',
    );
  }
  return { configDir: crew.configDir };
}

/** The crews of a crewAI project: `src/<package>/config/`, and in a Flow `src/<package>/crews/<crew>/config/`. */
async function projectCrews(root: string): Promise<FoundCrew[]> {
  const found: FoundCrew[] = [];
  for (const name of await subdirectories(path.join(root, 'src'))) {
    const packageDir = path.join(root, 'src', name);
    const configDir = path.join(packageDir, 'config');
    // A package with a crew.py and no config/ is a script that builds its crew in Python.
    if ((await holdsCrewFiles(configDir)) || (await entryKind(path.join(packageDir, 'crew.py'))) === 'file')
      found.push({ name, configDir });
    for (const crewName of await subdirectories(path.join(packageDir, 'crews'))) {
      const crewConfig = path.join(packageDir, 'crews', crewName, 'config');
      if (await holdsCrewFiles(crewConfig)) found.push({ name: crewName, configDir: crewConfig });
    }
  }
  return found;
}

async function holdsCrewFiles(dir: string): Promise<boolean> {
  const [agents, tasks] = await Promise.all([
    entryKind(path.join(dir, 'agents.yaml')),
    entryKind(path.join(dir, 'tasks.yaml')),
  ]);
  return agents === 'file' || tasks === 'file';
}

async function subdirectories(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}

async function entryKind(target: string): Promise<'file' | 'directory' | 'other' | 'missing'> {
  try {
    const stats = await stat(target);
    if (stats.isFile()) return 'file';
    return stats.isDirectory() ? 'directory' : 'other';
  } catch {
    return 'missing';
  }
}
