import { readdir, realpath, stat } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { z } from 'zod';
import { crewFileRefusal } from './crew-read-rule.ts';
import { defineBuiltinTool } from './define-builtin-tool.ts';
import {
  findAllReadable,
  identityOf,
  isCrewdState,
  isInside,
  readRoots,
  readableWithin,
  stateIdentities,
} from './file-sandbox.ts';
import type { FoundPath } from './file-sandbox.ts';
import { ToolFailure } from './tool-failure.ts';

/** A listing stops here: a crew directory with dependencies installed can hold hundreds of thousands of files. */
const maxListedFiles = 2_000;

const where =
  "Relative paths are looked up in this execution's workspace and in the crew directory, and the files of both are " +
  "listed; '.' lists everything. Absolute paths and paths that lead outside them are rejected; crewd's own data, " +
  "hidden and environment files, keys and the crew's definition and code are not listed.";

/** crewAI's DirectoryReadTool: every file under a directory, recursively, as paths FileReadTool accepts. */
export const directoryReadTool = defineBuiltinTool({
  name: 'DirectoryReadTool',
  args: z.object({ directory: z.string().describe('Mandatory directory to list content') }),
  settings: z.object({}),
  describe(presets) {
    const fixed = typeof presets['directory'] === 'string' ? presets['directory'] : undefined;
    if (fixed !== undefined) return `A tool that can be used to list ${fixed}'s content. ${where}`;
    return `A tool that can be used to recursively list a directory's content. ${where}`;
  },
  async run(args, _settings, context, options) {
    const matches = await findAllReadable(
      args.directory,
      readRoots(options, context.executionId),
      'directory',
    );
    const found = await directoriesOf(matches);
    if (found.length === 0 && matches.length > 0) {
      throw new ToolFailure(`${args.directory} is a file, not a directory; use FileReadTool to read it.`);
    }
    if (found.length === 0) {
      throw new ToolFailure(`Directory not found: ${args.directory} (looked in ${readableWithin})`);
    }
    const files = new Set<string>();
    let complete = true;
    for (const directory of found) {
      complete = (await listFiles(directory, files, context.abortSignal)) && complete;
      if (!complete) break;
    }
    if (files.size === 0) return `File paths: (none; ${args.directory} holds no files)`;
    const lines = [...files].sort().map((file) => `- ${file}`);
    const more = complete ? '' : `\n(listing stopped after ${maxListedFiles} files)`;
    return `File paths: \n${lines.join('\n')}${more}`;
  },
});

/**
 * Adds the files under `found` as paths relative to its root; false when the listing hit its cap. What FileReadTool
 * refuses is neither listed nor walked into.
 */
async function listFiles(found: FoundPath, files: Set<string>, signal: AbortSignal): Promise<boolean> {
  const identities = await stateIdentities(found.root);
  // The directories on the way were checked before they were walked: an entry's own identity is enough.
  const refused = async (path: string): Promise<boolean> =>
    (found.root.guarded && crewFileRefusal(relative(found.realRoot, path)) !== undefined) ||
    identities.has((await identityOf(path)) ?? '');
  const refusedTarget = async (real: string): Promise<boolean> =>
    (found.root.guarded && crewFileRefusal(relative(found.realRoot, real)) !== undefined) ||
    (await isCrewdState(real, found.realRoot, identities));
  const pending = [found.realPath];
  for (let directory = pending.pop(); directory !== undefined; directory = pending.pop()) {
    signal.throwIfAborted();
    const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(directory, entry.name);
      if (await refused(path)) continue;
      if (entry.isDirectory()) pending.push(path);
      else if (!(await isListable(entry, path, found, refusedTarget))) continue;
      else if (files.size >= maxListedFiles) return false;
      else files.add(relative(found.realRoot, path).split(sep).join('/'));
    }
  }
  return true;
}

/**
 * Files, and links to files that stay inside the root and are not refused where they lead: links out would only be
 * refused when read, and linked directories are not walked, since they may lead out or loop.
 */
async function isListable(
  entry: Dirent,
  path: string,
  found: FoundPath,
  refused: (path: string) => Promise<boolean>,
): Promise<boolean> {
  if (entry.isFile()) return true;
  if (!entry.isSymbolicLink()) return false;
  const real = await realpath(path).catch(() => undefined);
  if (real === undefined || !isInside(real, found.realRoot) || (await refused(real))) return false;
  return (await stat(real)).isFile();
}

async function directoriesOf(matches: readonly FoundPath[]): Promise<FoundPath[]> {
  const checks = await Promise.all(matches.map(async (match) => (await stat(match.realPath)).isDirectory()));
  return matches.filter((_match, index) => checks[index] === true);
}
