import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CrewdError } from '../domain/errors.ts';

/** A crew's files: paths relative to its directory, `/`-separated, to their text (or `binaryPrefix` + base64). */
export type CrewSnapshot = Readonly<Record<string, string>>;

/** Marks a file kept as base64 because it is not UTF-8 text; no text file starts with a NUL. */
export const binaryPrefix = '\u0000base64:';

/**
 * Folders that are no part of a crew's definition: crewd's own data, dependencies, virtual environments, version
 * control and caches. `.env` files stay out too: they hold secrets, and the server reads its environment itself.
 */
const ignoredFolders = new Set([
  '.crewd',
  'node_modules',
  '.git',
  '__pycache__',
  '.venv',
  'venv',
  'workspace',
]);
const ignoredFile = /^\.env(\..*)?$/;

/** What one version may hold: a crew is its YAML, code and small data files, not a data set. */
export const snapshotLimits = { files: 2000, bytes: 16 * 1024 * 1024 };

/** Reads the crew's files as they are now, to keep as a version. */
export async function readCrewSnapshot(dir: string): Promise<CrewSnapshot> {
  const files: Record<string, string> = {};
  let count = 0;
  let bytes = 0;
  const walk = async (folder: string, prefix: string): Promise<void> => {
    const entries = await readdir(folder, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        if (!ignoredFolders.has(entry.name)) await walk(full, relative);
        continue;
      }
      if (!entry.isFile() || ignoredFile.test(entry.name)) continue;
      const content = await readFile(full);
      count += 1;
      bytes += content.length;
      if (count > snapshotLimits.files || bytes > snapshotLimits.bytes) {
        throw new CrewdError(
          'CONFIG_INVALID',
          `${dir} holds more than ${snapshotLimits.files} files or ${snapshotLimits.bytes / 1024 / 1024} MiB ` +
            'besides .crewd, node_modules, .git, .venv and workspace: too much to keep as a crew version',
        );
      }
      files[relative] = asText(content);
    }
  };
  await walk(path.resolve(dir), '');
  return files;
}

function asText(content: Buffer): string {
  const text = content.toString('utf8');
  return Buffer.from(text, 'utf8').equals(content) && !text.startsWith('\u0000')
    ? text
    : `${binaryPrefix}${content.toString('base64')}`;
}

/** The content hash of a snapshot: the same files give the same hash, whatever order they were read in. */
export function hashCrewSnapshot(files: CrewSnapshot): string {
  const hash = createHash('sha256');
  for (const name of Object.keys(files).sort()) {
    hash.update(`${name.length}:${name}`);
    const content = files[name]!;
    hash.update(`${Buffer.byteLength(content)}:`);
    hash.update(content);
  }
  return hash.digest('hex');
}

/**
 * Writes a snapshot out as a crew directory at `dir`, once: a directory already written whole is reused. Written
 * beside and renamed into place, so a process stopped halfway leaves no half a crew to load.
 */
export async function writeCrewSnapshot(dir: string, files: CrewSnapshot): Promise<void> {
  if (existsSync(dir)) return;
  const partial = `${dir}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  for (const [name, content] of Object.entries(files)) {
    const target = path.join(partial, ...name.split('/'));
    if (!target.startsWith(`${partial}${path.sep}`)) continue;
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(
      target,
      content.startsWith(binaryPrefix) ? Buffer.from(content.slice(binaryPrefix.length), 'base64') : content,
    );
  }
  await mkdir(partial, { recursive: true });
  await mkdir(path.dirname(dir), { recursive: true });
  try {
    await rename(partial, dir);
  } catch (error) {
    // Another process wrote the same version first: its copy holds the same files.
    if ((await stat(dir).catch(() => null))?.isDirectory() === true) {
      await rm(partial, { recursive: true, force: true });
      return;
    }
    throw error;
  }
}
