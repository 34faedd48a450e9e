import { clipText } from '../domain/clip-text.ts';
import type { CrewDefinition } from '../domain/crew.ts';
import type { Execution, PendingHumanInput } from '../domain/execution.ts';
import { whereExecutionStands } from '../engine/execution-standing.ts';
import type { Standing } from '../engine/execution-standing.ts';
import { budgetPauseFields, stepPayload, taskPayload } from '../webhooks/payloads.ts';
import { extendedBudget } from '../domain/budget.ts';
import { budgetApprovals } from '../domain/task-output.ts';
import type { TokenUsage } from '../domain/usage.ts';
import { outputFilesView } from './output-files-view.ts';
import type { StatusView } from './response-schemas.ts';
import { flowProgressOf } from '../service/flow-progress.ts';

/**
 * The `/status` object of an execution (CONTRACT §3.4). It carries no webhook targets, so no URL credentials can
 * leak through it. `last_step` and `last_executed_task` repeat what `result`, `tasks` and `pending_human_input`
 * hold whole, so their texts are clipped (see clip-text.ts): a large answer appears in a status once per place
 * that owns it, not once per copy.
 */
export function toStatusView(execution: Execution, crew: CrewDefinition, now: Date): StatusView {
  const standing = whereExecutionStands(crew, execution);
  const currentTask = standing.current;
  // A budget pause's output is a notice, not a task's answer.
  const reviewed = execution.pending?.budget === undefined ? execution.pending?.output : undefined;
  const lastOutput = reviewed ?? execution.outputs.at(-1) ?? null;
  const failed = execution.state === 'FAILED';
  return {
    kickoff_id: execution.id,
    state: execution.state,
    status: statusSentence(execution, standing),
    // Clients of the hosted service read `result` alone, so a failure's reason goes there too.
    result: failed ? (execution.error ?? execution.result) : execution.result,
    result_json: execution.resultJson,
    error: execution.error,
    current_task: currentTask,
    progress: {
      completed: standing.completed,
      total: standing.total,
      remaining: standing.remaining,
      current: currentTask,
      current_agent: standing.currentAgent,
    },
    last_step: execution.lastStep === null ? null : lastStepView(execution),
    last_executed_task:
      lastOutput === null
        ? null
        : {
            ...taskPayload(execution.id, lastOutput, lastOutput.taskId, execution.meta),
            output: clipText(lastOutput.output),
          },
    tasks: execution.outputs.map((output) =>
      taskPayload(execution.id, output, output.taskId, execution.meta),
    ),
    output_files: outputFilesView(execution),
    pending_human_input: pendingView(execution.pending),
    reviews: execution.feedback.map((given) => ({
      task_id: given.taskId,
      attempt: given.attempt,
      is_approve: given.approved,
      given_by: given.givenBy ?? 'person',
      ...(given.budget === undefined ? {} : { kind: 'budget' as const }),
    })),
    usage_metrics: {
      total_tokens: execution.usage.totalTokens,
      prompt_tokens: execution.usage.promptTokens,
      completion_tokens: execution.usage.completionTokens,
      successful_requests: execution.usage.successfulRequests,
      ...costView(execution.usage),
    },
    budget: budgetView(execution),
    ...flowView(execution),
    execution_time: executionSeconds(execution, now),
    created_at: execution.createdAt.toISOString(),
    updated_at: execution.updatedAt.toISOString(),
    meta: execution.meta,
  };
}

function pendingView(pending: PendingHumanInput | null): StatusView['pending_human_input'] {
  if (pending === null) return null;
  const { deadline } = pending;
  return {
    task_id: pending.taskId,
    output: pending.output.output,
    attempt: pending.attempt,
    ...(pending.budget === undefined ? {} : budgetPauseFields(pending.budget)),
    ...(pending.review === undefined
      ? {}
      : {
          message: pending.review.message,
          ...(pending.review.emit === undefined ? {} : { emit: [...pending.review.emit] }),
        }),
    ...(deadline === undefined
      ? {}
      : {
          deadline: {
            at: deadline.at.toISOString(),
            is_approve: deadline.outcome.approve,
            human_feedback: deadline.outcome.approve ? '' : deadline.outcome.feedback,
          },
        }),
  };
}

/** The cost so far, unknown (null) once a call's model had no known price: its tokens still count. */
function costView(
  usage: TokenUsage,
): Pick<StatusView['usage_metrics'], 'total_cost_usd' | 'unpriced_requests'> {
  const unpriced = usage.unpricedRequests ?? 0;
  return { total_cost_usd: unpriced > 0 ? null : (usage.costUsd ?? 0), unpriced_requests: unpriced };
}

function budgetView(execution: Execution): StatusView['budget'] {
  if (execution.budget === undefined) return null;
  const limit = extendedBudget(execution.budget, budgetApprovals(execution.feedback, 'execution'));
  return {
    ...(limit.tokens === undefined ? {} : { tokens: limit.tokens }),
    ...(limit.costUsd === undefined ? {} : { cost_usd: limit.costUsd }),
  };
}

/** A flow execution's state and route; nothing for a crew's. */
function flowView(execution: Execution): Pick<StatusView, 'flow_state' | 'flow_methods'> {
  const progress = flowProgressOf(execution);
  if (progress === undefined) return {};
  return { flow_state: { ...progress.state }, flow_methods: [...progress.completed] };
}

function lastStepView(execution: Execution): StatusView['last_step'] {
  const step = execution.lastStep!;
  const payload = stepPayload(execution.id, step, execution.meta);
  // Steps saved before steps clipped their own texts may hold them whole.
  return {
    ...payload,
    prompt: clipText(payload.prompt),
    thought: clipText(payload.thought),
    result: clipText(payload.result),
  };
}

/** Seconds from start to finish, or to `now` while running; null before the start. */
export function executionSeconds(execution: Execution, now: Date): number | null {
  if (execution.startedAt === null) return null;
  const end = execution.finishedAt ?? now;
  return Math.max(0, end.getTime() - execution.startedAt.getTime()) / 1000;
}

function statusSentence(execution: Execution, standing: Standing): string {
  const { completed, total, position } = standing;
  switch (execution.state) {
    case 'PENDING':
      return 'Waiting to start';
    case 'RUNNING': {
      const task = execution.currentTask;
      if (task === null) return 'Running';
      return position === null ? `Running task ${task}` : `Running task ${task} (${position} of ${total})`;
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
