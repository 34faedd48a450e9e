import type { Readable } from 'node:stream';
import type { SavedFile } from '../domain/task-output.ts';

/** A file to save for a task: where in the execution's workspace, and what. */
export interface OutputFileRequest {
  readonly executionId: string;
  /** Relative to the execution's workspace, placeholders already filled in. */
  readonly path: string;
  /** Make missing directories (crewAI's `create_directory`); otherwise a missing directory fails the task. */
  readonly createDirectory: boolean;
  readonly content: string;
}

/**
 * Where tasks' `output_file`s go: each execution's own workspace. `save` returns once the file is on disk
 * (written whole or not at all), and refuses a path that would lead outside the workspace.
 */
export interface OutputFiles {
  save(request: OutputFileRequest): Promise<SavedFile>;
}

/** A saved file opened for reading. */
export interface OpenedFile {
  readonly bytes: number;
  readonly stream: Readable;
}

/** Reads back the files executions saved, for download. */
export interface OutputFileReader {
  /** The file at `path` in the execution's workspace, or undefined when there is none there. */
  open(executionId: string, path: string): Promise<OpenedFile | undefined>;
}
