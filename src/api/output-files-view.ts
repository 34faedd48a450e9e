import type { Execution } from '../domain/execution.ts';
import type { SavedFile } from '../domain/task-output.ts';

/** One entry of `/status` `output_files`. */
export interface OutputFileView {
  readonly task_id: string;
  readonly path: string;
  readonly size: number;
  /** Relative to the server's base URL; needs the same bearer token as `/status`. */
  readonly url: string;
}

/**
 * The files an execution's tasks saved (`output_file`), accepted tasks first, then the answer awaiting review.
 * When two tasks save the same path, the later one holds it.
 */
export function savedFiles(execution: Execution): Map<string, { taskId: string; file: SavedFile }> {
  const files = new Map<string, { taskId: string; file: SavedFile }>();
  const outputs =
    execution.pending === null ? execution.outputs : [...execution.outputs, execution.pending.output];
  for (const output of outputs) {
    if (output.outputFile === undefined) continue;
    files.delete(output.outputFile.path);
    files.set(output.outputFile.path, { taskId: output.taskId, file: output.outputFile });
  }
  return files;
}

export function outputFilesView(execution: Execution): OutputFileView[] {
  return Array.from(savedFiles(execution).values(), ({ taskId, file }) => ({
    task_id: taskId,
    path: file.path,
    size: file.bytes,
    url: `/executions/${encodeURIComponent(execution.id)}/files/${file.path.split('/').map(encodeURIComponent).join('/')}`,
  }));
}
