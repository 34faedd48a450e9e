import { createReadStream } from 'node:fs';
import { lstat, open, realpath, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { CrewdError } from '../domain/errors.ts';
import type { SavedFile } from '../domain/task-output.ts';
import type { OpenedFile, OutputFileReader, OutputFileRequest, OutputFiles } from '../engine/output-files.ts';
import { executionWorkspace } from './execution-workspace.ts';
import { makeOwnerOnlyDirectory, ownerOnlyFileMode } from './owner-only.ts';

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

  async save(request: OutputFileRequest): Promise<SavedFile> {
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
    const temporary = `${target}.${process.pid}.partial`;
    const file = await open(temporary, 'w', ownerOnlyFileMode);
    try {
      // The umask narrows the mode given; this sets it exactly.
      await file.chmod(ownerOnlyFileMode);
      await file.writeFile(request.content, 'utf8');
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, target).catch(async (error: unknown) => {
      await rm(temporary, { force: true });
      throw error;
    });
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

function outside(filePath: string): CrewdError {
  return new CrewdError('TASK_FAILED', `output_file '${filePath}' leads outside the execution's workspace`);
}

function isInside(candidate: string, root: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(path.sep) ? root : `${root}${path.sep}`);
}
