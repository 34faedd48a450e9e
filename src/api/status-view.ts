import { interpolate } from '../crew/placeholders.ts';
import type { CrewDefinition } from '../domain/crew.ts';
import type { Execution } from '../domain/execution.ts';
import { stepPayload, taskPayload } from '../webhooks/payloads.ts';
import { outputFilesView } from './output-files-view.ts';
import type { StatusView } from './response-schemas.ts';

/**
 * The `/status` object of an execution (CONTRACT §3.4). It carries no webhook targets, so no URL credentials can
 * leak through it.
 */
export function toStatusView(execution: Execution, crew: CrewDefinition, now: Date): StatusView {
  const total = crew.tasks.length;
  const completed = Math.min(execution.outputs.length, total);
  const currentTask = execution.pending?.taskId ?? execution.currentTask;
  const lastOutput = execution.pending?.output ?? execution.outputs.at(-1) ?? null;
  const failed = execution.state === 'FAILED';
  return {
    kickoff_id: execution.id,
    state: execution.state,
    status: statusSentence(execution, crew, completed, total),
    // Clients of the hosted service read `result` alone, so a failure's reason goes there too.
    result: failed ? (execution.error ?? execution.result) : execution.result,
    result_json: execution.resultJson,
    error: execution.error,
    current_task: currentTask,
    progress: {
      completed,
      total,
      remaining: total - completed,
      current: currentTask,
      current_agent: currentTask === null ? null : agentRole(crew, currentTask, execution.inputs),
    },
    last_step:
      execution.lastStep === null ? null : stepPayload(execution.id, execution.lastStep, execution.meta),
    last_executed_task:
      lastOutput === null ? null : taskPayload(execution.id, lastOutput, lastOutput.taskId, execution.meta),
    tasks: execution.outputs.map((output) =>
      taskPayload(execution.id, output, output.taskId, execution.meta),
    ),
    output_files: outputFilesView(execution),
    pending_human_input:
      execution.pending === null
        ? null
        : {
            task_id: execution.pending.taskId,
            output: execution.pending.output.output,
            attempt: execution.pending.attempt,
          },
    usage_metrics: {
      total_tokens: execution.usage.totalTokens,
      prompt_tokens: execution.usage.promptTokens,
      completion_tokens: execution.usage.completionTokens,
      successful_requests: execution.usage.successfulRequests,
    },
    execution_time: executionSeconds(execution, now),
    created_at: execution.createdAt.toISOString(),
    updated_at: execution.updatedAt.toISOString(),
    meta: execution.meta,
  };
}

/** The role as the agent sees it, with the execution's inputs filled in. */
function agentRole(crew: CrewDefinition, taskId: string, inputs: Execution['inputs']): string | null {
  const task = crew.tasks.find((candidate) => candidate.name === taskId);
  if (task === undefined) return null;
  const role = crew.agents.get(task.agent)?.role;
  return role === undefined ? task.agent : interpolate(role, inputs);
}

/** Seconds from start to finish, or to `now` while running; null before the start. */
export function executionSeconds(execution: Execution, now: Date): number | null {
  if (execution.startedAt === null) return null;
  const end = execution.finishedAt ?? now;
  return Math.max(0, end.getTime() - execution.startedAt.getTime()) / 1000;
}

function statusSentence(
  execution: Execution,
  crew: CrewDefinition,
  completed: number,
  total: number,
): string {
  switch (execution.state) {
    case 'PENDING':
      return 'Waiting to start';
    case 'RUNNING': {
      const task = execution.currentTask;
      if (task === null) return 'Running';
      const position = crew.tasks.findIndex((candidate) => candidate.name === task) + 1;
      return position > 0 ? `Running task ${task} (${position} of ${total})` : `Running task ${task}`;
    }
    case 'PAUSED':
      return 'Pending Human Input';
    case 'SUCCESS':
      return 'Execution completed';
    case 'REVOKED':
      return 'Execution cancelled';
    case 'FAILED':
      return `Execution failed after ${completed} of ${total} tasks`;
  }
}
