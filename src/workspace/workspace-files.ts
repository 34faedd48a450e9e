import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, open, realpath, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { clipText } from '../domain/clip-text.ts';
import { CrewdError, isCrewdError } from '../domain/errors.ts';
import type { SavedFile } from '../domain/task-output.ts';
import type { OpenedFile, OutputFileReader, OutputFileRequest, OutputFiles } from '../engine/output-files.ts';
import { executionWorkspace } from './execution-workspace.ts';
import { makeOwnerOnlyDirectory, ownerOnlyFileMode } from '../system/owner-only.ts';

/**
 * Output files in the workspace on local disk: written to a temporary file, flushed and renamed into place, so a
 * crash leaves either the old file or the new one. Paths are checked against the workspace's real location, so
 * neither `..` nor a symbolic link carries a write or a read outside it.
 */
export class WorkspaceFiles implements OutputFiles, OutputFileReader {
  /** `directoryOf` gives the directory an execution's files go in (created when missing). */
  constructor(private readonly directoryOf: (executionId: string) => string) {}

  /** Each execution's files in its own directory under the workspace root, as file tools see them. */
  static underRoot(root: string): WorkspaceFiles {
    return new WorkspaceFiles((executionId) => {
      // Kickoff ids are UUIDs; anything else never becomes a path.
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(executionId)) {
        throw new CrewdError('NOT_FOUND', `No execution with id ${executionId}`);
      }
      return executionWorkspace(root, executionId);
    });
  }

  /** Fails with `TASK_FAILED` saying what kept the file from being written, never with the file system's words. */
  async save(request: OutputFileRequest): Promise<SavedFile> {
    try {
      return await this.#save(request);
    } catch (error) {
      throw isCrewdError(error) ? error : notWritten(request.path, error);
    }
  }

  async #save(request: OutputFileRequest): Promise<SavedFile> {
    const workspace = this.directoryOf(request.executionId);
    const relativePath = inWorkspace(request.path);
    if (relativePath === undefined) throw outside(request.path);
    await makeOwnerOnlyDirectory(workspace);
    const realWorkspace = await realpath(workspace);
    const target = path.join(realWorkspace, relativePath);
    const directory = path.dirname(target);
    if ((await lstat(directory).catch(() => undefined)) === undefined) {
      if (!request.createDirectory) {
        throw new CrewdError(
          'TASK_FAILED',
          `output_file '${request.path}': its directory does not exist and create_directory is false`,
        );
      }
      await makeOwnerOnlyDirectory(directory);
    }
    const realDirectory = await realpath(directory);
    if (!isInside(realDirectory, realWorkspace)) throw outside(request.path);
    const existing = await lstat(target).catch(() => undefined);
    if (existing?.isSymbolicLink() === true || existing?.isDirectory() === true) {
      throw new CrewdError(
        'TASK_FAILED',
        `output_file '${request.path}' is not a plain file in the workspace`,
      );
    }
    // Named apart from the target, so a target whose name is as long as the file system allows can be written.
    const temporary = path.join(directory, `.${process.pid}-${randomBytes(4).toString('hex')}.partial`);
    try {
      const file = await open(temporary, 'w', ownerOnlyFileMode);
      try {
        // The umask narrows the mode given; this sets it exactly.
        await file.chmod(ownerOnlyFileMode);
        await file.writeFile(request.content, 'utf8');
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temporary, target);
    } catch (error) {
      // A full disk may have cut the write short: what was written of it goes.
      await rm(temporary, { force: true });
      throw error;
    }
    return {
      path: relativePath.split(path.sep).join('/'),
      bytes: Buffer.byteLength(request.content, 'utf8'),
    };
  }

  /** A saved file of the execution, or undefined when there is none at `filePath` inside its workspace. */
  async open(executionId: string, filePath: string): Promise<OpenedFile | undefined> {
    const realWorkspace = await realpath(this.directoryOf(executionId)).catch(() => undefined);
    if (realWorkspace === undefined) return undefined;
    const relativePath = inWorkspace(filePath);
    if (relativePath === undefined) return undefined;
    const real = await realpath(path.join(realWorkspace, relativePath)).catch(() => undefined);
    if (real === undefined || !isInside(real, realWorkspace)) return undefined;
    const stats = await lstat(real);
    if (!stats.isFile()) return undefined;
    return { bytes: stats.size, stream: createReadStream(real) };
  }
}

/** `filePath` as a normalized path inside the workspace, or undefined when it would lead out. */
function inWorkspace(filePath: string): string | undefined {
  const normal = path.normalize(filePath.replace(/^\/+/, ''));
  if (
    filePath.includes('\0') ||
    path.isAbsolute(normal) ||
    normal === '.' ||
    normal === '..' ||
    normal.startsWith(`..${path.sep}`)
  ) {
    return undefined;
  }
  return normal;
}

/** What each file system error means for an output file, in words that name no path outside the workspace. */
const writeProblems: Readonly<Record<string, string>> = {
  ENAMETOOLONG: 'its name is too long for the file system (at most 255 bytes per name)',
  EISDIR: 'a directory of that name is in the way',
  ENOTDIR: 'a part of its path is a file, not a directory',
  EEXIST: 'a part of its path is a file, not a directory',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the disk is read-only',
  EACCES: 'crewd may not write there',
  EPERM: 'crewd may not write there',
  EMFILE: 'too many files are open',
  ENFILE: 'too many files are open',
};

function notWritten(filePath: string, error: unknown): CrewdError {
  const code = (error as { code?: unknown } | null)?.code;
  const problem = typeof code === 'string' ? writeProblems[code] : undefined;
  // A path made of long placeholder values is named by its start.
  const shown = clipText(filePath, 120);
  return new CrewdError(
    'TASK_FAILED',
    `output_file '${shown}' could not be written: ${problem ?? `the file system refused it${typeof code === 'string' ? ` (${code})` : ''}`}`,
    { cause: error },
  );
}

function outside(filePath: string): CrewdError {
  return new CrewdError('TASK_FAILED', `output_file '${filePath}' leads outside the execution's workspace`);
}

function isInside(candidate: string, root: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(path.sep) ? root : `${root}${path.sep}`);
}
