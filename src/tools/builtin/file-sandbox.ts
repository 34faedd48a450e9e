import { lstat, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { makeOwnerOnlyDirectory } from '../../system/owner-only.ts';
import type { BuiltinToolOptions } from './builtin-tool-options.ts';
import { crewdDataRefusal, crewFileRefusal } from './crew-read-rule.ts';
import { ToolFailure } from './tool-failure.ts';

/** A directory file tools may read under, with the words the model reads for it. */
export interface FileRoot {
  readonly dir: string;
  readonly label: string;
  /**
   * The crew directory's rule applies here (see `crewFileRefusal`), and crewd's own files are refused wherever
   * they lie in it; the execution's own workspace holds only what the execution wrote.
   */
  readonly guarded: boolean;
  /** crewd's own files and directories: nothing at or under them is read or listed. */
  readonly crewdState: readonly string[];
}

/** A path found under a root: its real location and the relative path the model is shown. */
export interface FoundPath {
  readonly realPath: string;
  readonly display: string;
  readonly root: FileRoot;
  /** The root's own real path, which `display` is relative to. */
  readonly realRoot: string;
}

const workspaceLabel = "execution's workspace";
const crewLabel = 'crew directory';

/** The execution's own directory; an id that is not a plain name never becomes a path. */
export function workspaceOf(options: BuiltinToolOptions, executionId: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(executionId)) {
    throw new ToolFailure('this execution has no workspace: its id is not a plain name');
  }
  return resolve(options.workspaceRoot, executionId);
}

/** Where relative paths are read from, in order: the workspace (what FileWriterTool wrote), then the crew. */
export function readRoots(options: BuiltinToolOptions, executionId: string): readonly FileRoot[] {
  const crewdState = options.crewdState;
  return [
    { dir: workspaceOf(options, executionId), label: workspaceLabel, guarded: false, crewdState },
    { dir: resolve(options.crewDir), label: crewLabel, guarded: true, crewdState },
  ];
}

/**
 * `path` as a normalized relative path, or a refusal the model reads: absolute paths and `..` that climbs out are
 * refused before anything touches the disk.
 */
export function relativePath(path: string, kind: string, within: string): string {
  if (path.includes('\0')) throw new ToolFailure(`Invalid ${kind}: it contains a NUL character.`);
  if (isAbsolute(path)) {
    throw new ToolFailure(
      `Invalid ${kind}: '${path}' is an absolute path; give a path relative to ${within}.`,
    );
  }
  const normal = normalize(path === '' ? '.' : path);
  if (normal === '..' || normal.startsWith(`..${sep}`)) {
    throw new ToolFailure(`Invalid ${kind}: '${path}' is outside ${within}.`);
  }
  return normal.endsWith(sep) && normal !== sep ? normal.slice(0, -1) : normal;
}

export const readableWithin = `the ${workspaceLabel} or the ${crewLabel}`;

/**
 * The first root where `path` exists, resolved through symbolic links; a link that leads out of its root is
 * refused rather than skipped, so the model learns why. Undefined when no root has it.
 */
export async function findReadable(
  path: string,
  roots: readonly FileRoot[],
  kind = 'file path',
): Promise<FoundPath | undefined> {
  const relativeTarget = relativePath(path, kind, readableWithin);
  for (const root of roots) {
    const found = await resolveUnder(root, relativeTarget, path, kind);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Every root where `path` exists, for listings that merge them. */
export async function findAllReadable(
  path: string,
  roots: readonly FileRoot[],
  kind: string,
): Promise<FoundPath[]> {
  const relativeTarget = relativePath(path, kind, readableWithin);
  const found: FoundPath[] = [];
  for (const root of roots) {
    const match = await resolveUnder(root, relativeTarget, path, kind);
    if (match !== undefined) found.push(match);
  }
  return found;
}

async function resolveUnder(
  root: FileRoot,
  relativeTarget: string,
  given: string,
  kind: string,
): Promise<FoundPath | undefined> {
  // Refused by name before the disk is asked, so a refusal tells nothing of what exists.
  if (root.guarded) refuseIf(crewFileRefusal(relativeTarget), given, kind);
  const realRoot = await realpath(root.dir).catch(() => undefined);
  if (realRoot === undefined) return undefined;
  const candidate = join(realRoot, relativeTarget);
  if ((await lstat(candidate).catch(() => undefined)) === undefined) return undefined;
  // A link that points nowhere counts as missing; one that points out of the root is refused.
  const real = await realpath(candidate).catch(() => undefined);
  if (real === undefined) return undefined;
  if (!isInside(real, realRoot)) {
    throw new ToolFailure(
      `Invalid ${kind}: '${given}' is a symbolic link that leads outside the ${root.label}.`,
    );
  }
  const display = relative(realRoot, real) || '.';
  // Again on where a link leads: a link to `.env` or into `.crewd/` is refused like the file itself.
  if (root.guarded) refuseIf(crewFileRefusal(display), given, kind);
  if (await isCrewdState(real, realRoot, await stateIdentities(root)))
    refuseIf(crewdDataRefusal, given, kind);
  return { realPath: real, display, root, realRoot };
}

function refuseIf(reason: string | undefined, given: string, kind: string): void {
  if (reason !== undefined)
    throw new ToolFailure(`Invalid ${kind}: '${given}' ${reason}; tools do not read it.`);
}

/**
 * The identities (device and inode) of crewd's own files that exist now. Compared by identity rather than by
 * name, so no spelling reaches them: another case on a case-insensitive disk, a hard link, a bind mount.
 */
export async function stateIdentities(root: FileRoot): Promise<ReadonlySet<string>> {
  const found = await Promise.all(root.crewdState.map((path) => identityOf(path)));
  return new Set(found.filter((identity) => identity !== undefined));
}

/** A file's device and inode, following links; undefined when it does not exist. */
export async function identityOf(path: string): Promise<string | undefined> {
  const stats = await stat(path, { bigint: true }).catch(() => undefined);
  return stats === undefined ? undefined : `${stats.dev}:${stats.ino}`;
}

/** Whether `real` (under `realRoot`), or any directory between them, is one of crewd's own files. */
export async function isCrewdState(
  real: string,
  realRoot: string,
  identities: ReadonlySet<string>,
): Promise<boolean> {
  if (identities.size === 0) return false;
  let current = realRoot;
  if (identities.has((await identityOf(current)) ?? '')) return true;
  for (const part of relative(realRoot, real).split(sep)) {
    if (part === '') continue;
    current = join(current, part);
    if (identities.has((await identityOf(current)) ?? '')) return true;
  }
  return false;
}

export function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/** Where FileWriterTool may write `filename` in `directory`: the real path, its directories made, and its label. */
export async function prepareWritable(
  workspace: string,
  directory: string,
  filename: string,
): Promise<{ realPath: string; display: string }> {
  const within = `the ${workspaceLabel}`;
  const relativeDirectory = relativePath(directory, 'directory', within);
  if (filename === '' || isAbsolute(filename)) {
    throw new ToolFailure(`Invalid file path: the filename must be a path relative to the directory.`);
  }
  const inDirectory = normalize(filename);
  if (
    inDirectory === '.' ||
    inDirectory === '..' ||
    inDirectory.startsWith(`..${sep}`) ||
    filename.includes('\0')
  ) {
    throw new ToolFailure('Invalid file path: the filename must not escape the target directory.');
  }
  const target = relativePath(join(relativeDirectory, inDirectory), 'file path', within);
  await makeOwnerOnlyDirectory(workspace);
  const realWorkspace = await realpath(workspace);
  // Each existing directory on the way is resolved and checked, so a linked directory cannot carry the write out.
  let current = realWorkspace;
  const parts = target.split(sep);
  const fileName = parts.pop() ?? '';
  for (const part of parts) {
    if (part === '.') continue;
    const next = join(current, part);
    // Made when missing (a parallel call may make it first), then checked like any directory already there.
    if ((await lstat(next).catch(() => undefined)) === undefined) await makeOwnerOnlyDirectory(next);
    const real = await realpath(next).catch(() => undefined);
    if (real === undefined || !isInside(real, realWorkspace)) {
      throw new ToolFailure(`Invalid directory: '${part}' is a symbolic link that leads outside ${within}.`);
    }
    if (!(await lstat(real)).isDirectory()) {
      throw new ToolFailure(
        `Cannot write to ${relative(realWorkspace, join(real, fileName))}: a file already exists where a directory is needed.`,
      );
    }
    current = real;
  }
  let realPath = join(current, fileName);
  const existing = await lstat(realPath).catch(() => undefined);
  if (existing?.isSymbolicLink() === true) {
    const real = await realpath(realPath).catch(() => undefined);
    if (real === undefined || !isInside(real, realWorkspace)) {
      throw new ToolFailure(
        `Invalid file path: '${filename}' is a symbolic link that leads outside ${within}.`,
      );
    }
    realPath = real;
  }
  return { realPath, display: relative(realWorkspace, realPath) };
}
