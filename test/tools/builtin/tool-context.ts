import type { ToolContext } from '../../../src/engine/tool.ts';

/** The context the engine gives one call, for an execution of the given id. */
export function toolContext(
  executionId = 'kickoff-1',
  abortSignal = new AbortController().signal,
): ToolContext {
  return { toolCallId: 'call-1', executionId, taskId: 'research', agent: 'researcher', abortSignal };
}
