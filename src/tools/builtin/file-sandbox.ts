import { lstat, mkdir, realpath } from 'node:fs/promises';
import { isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import type { BuiltinToolOptions } from './builtin-tool-options.ts';
import { ToolFailure } from './tool-failure.ts';

/** A directory file tools may read under, with the words the model reads for it. */
export interface FileRoot {
  readonly dir: string;
  readonly label: string;
  /** Environment files here are not read: a crew directory's `.env` holds the provider keys. */
  readonly hidesEnvFiles: boolean;
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
  return [
    { dir: workspaceOf(options, executionId), label: workspaceLabel, hidesEnvFiles: false },
    { dir: resolve(options.crewDir), label: crewLabel, hidesEnvFiles: true },
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
  if (root.hidesEnvFiles && display.split(sep).some(isEnvFileName)) {
    throw new ToolFailure(
      `Invalid ${kind}: '${given}' is an environment file, which may hold secrets; tools do not read it.`,
    );
  }
  return { realPath: real, display, root, realRoot };
}

export function isEnvFileName(name: string): boolean {
  return name === '.env' || name.startsWith('.env.');
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
  await mkdir(workspace, { recursive: true });
  const realWorkspace = await realpath(workspace);
  // Each existing directory on the way is resolved and checked, so a linked directory cannot carry the write out.
  let current = realWorkspace;
  const parts = target.split(sep);
  const fileName = parts.pop() ?? '';
  for (const part of parts) {
    if (part === '.') continue;
    const next = join(current, part);
    // Made when missing (a parallel call may make it first), then checked like any directory already there.
    if ((await lstat(next).catch(() => undefined)) === undefined) await mkdir(next, { recursive: true });
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
