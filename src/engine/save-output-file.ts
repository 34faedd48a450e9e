import { findPlaceholders, interpolate } from '../crew/index.ts';
import type { TaskDefinition } from '../domain/crew.ts';
import { CrewdError } from '../domain/errors.ts';
import type { TaskOutput } from '../domain/task-output.ts';
import type { RunCrewRequest } from './run-request.ts';

/**
 * Saves a task's answer at its `output_file`, as crewAI does when the task finishes: a structured answer as
 * indented JSON, any other as its text. Returns the output with the saved file noted; unchanged without one.
 */
export async function saveOutputFile(
  request: Pick<RunCrewRequest, 'outputFiles' | 'executionId' | 'inputs'>,
  task: TaskDefinition,
  output: TaskOutput,
): Promise<TaskOutput> {
  const { outputFiles: files, executionId, inputs } = request;
  if (task.outputFile === undefined || files === undefined) return output;
  const filePath = interpolate(task.outputFile, inputs);
  const unfilled = findPlaceholders(filePath);
  if (unfilled.length > 0) {
    throw new CrewdError(
      'TASK_FAILED',
      `output_file '${task.outputFile}' needs the input '${unfilled[0] ?? ''}', which the kickoff did not give`,
    );
  }
  const content = output.outputJson === null ? output.output : JSON.stringify(output.outputJson, null, 2);
  const saved = await files.save({
    executionId,
    path: filePath,
    createDirectory: task.createDirectory ?? true,
    content,
  });
  return { ...output, outputFile: saved };
}
