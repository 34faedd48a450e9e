import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { CrewLoadError } from '../domain/errors.ts';

/** A crew file: where it is, and the name messages use for it (relative to the crew directory). */
export interface CrewFile {
  readonly path: string;
  readonly name: string;
}

export interface CrewFiles {
  /** The crew directory, absolute. */
  readonly root: string;
  readonly agents: CrewFile;
  readonly tasks: CrewFile;
  readonly crew: CrewFile | undefined;
  /** A crewAI project's crew.py (the `@CrewBase` class), beside the `config/` folder. */
  readonly python: CrewFile | undefined;
}

/**
 * Finds a crew's files. `dir` is either the folder holding agents.yaml and tasks.yaml, a crewAI package
 * folder (`config/agents.yaml`), or a crewAI project root (`src/<package>/config/agents.yaml`).
 * crew.yaml may sit in `dir` itself or beside the other two.
 */
export async function locateCrewFiles(dir: string): Promise<CrewFiles> {
  const root = path.resolve(dir);
  const kind = await entryKind(root);
  if (kind === 'missing') throw new CrewLoadError(dir, 'crew directory not found');
  if (kind !== 'directory') throw new CrewLoadError(dir, 'is not a directory');

  const configDir = await findConfigDir(root);
  const file = (absolute: string): CrewFile => ({
    path: absolute,
    name: path.relative(root, absolute).split(path.sep).join('/'),
  });
  const agents = file(path.join(configDir, 'agents.yaml'));
  const tasks = file(path.join(configDir, 'tasks.yaml'));
  for (const required of [agents, tasks]) {
    if ((await entryKind(required.path)) !== 'file') throw new CrewLoadError(required.name, 'file not found');
  }

  let crew: CrewFile | undefined;
  for (const candidate of new Set([root, configDir])) {
    const crewPath = path.join(candidate, 'crew.yaml');
    if ((await entryKind(crewPath)) === 'file') {
      crew = file(crewPath);
      break;
    }
  }
  return { root, agents, tasks, crew, python: await findCrewPy(configDir, file) };
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
      if ((await readFile(candidate, 'utf8')).includes('CrewBase')) return file(candidate);
    } catch {
      // Unreadable: not a crew file crewd can use.
    }
  }
  return undefined;
}

async function findConfigDir(root: string): Promise<string> {
  for (const candidate of [root, path.join(root, 'config')]) {
    if (await holdsCrewFiles(candidate)) return candidate;
  }
  const packages = await subdirectories(path.join(root, 'src'));
  const found: string[] = [];
  for (const name of packages) {
    const candidate = path.join(root, 'src', name, 'config');
    if (await holdsCrewFiles(candidate)) found.push(candidate);
  }
  if (found.length > 1) {
    const names = found.map((candidate) => path.basename(path.dirname(candidate))).join(', ');
    throw new CrewLoadError('src', `holds several crewAI packages (${names}); point crewd at one of them`);
  }
  const [configDir] = found;
  if (configDir === undefined) {
    throw new CrewLoadError('agents.yaml', 'file not found (looked in ., config/ and src/<package>/config/)');
  }
  return configDir;
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
