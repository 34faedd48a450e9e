import type { AgentStep, EngineEvent, GuardrailCheck } from '../domain/events.ts';
import { isFinished, type Execution, type FlowReviewRequest } from '../domain/execution.ts';
import type { HumanFeedback, TaskOutput } from '../domain/task-output.ts';
import type { ExecutionLogData, ExecutionLogEvent, FlowRunTag } from '../domain/execution-log.ts';
import type { BudgetReached } from '../domain/budget.ts';
import { budgetPauseFields, stepPayload, taskPayload } from '../webhooks/payloads.ts';

type Meta = Execution['meta'];

/** The last event of every execution's log, written with the state change that ends it. */
export const executionEndType = 'execution-end';

/** The entries of an execution's event log (served as Server-Sent Events), in the webhook payloads' shapes. */
export const eventRecord = {
  executionStarted(): ExecutionLogEvent {
    return { type: 'execution-start', data: { state: 'RUNNING' } };
  },

  taskStarted(event: Extract<EngineEvent, { type: 'task-start' }>): ExecutionLogEvent {
    return {
      type: 'task-start',
      data: { task_id: event.taskId, agent: event.agent, attempt: event.attempt },
    };
  },

  stepEnded(kickoffId: string, step: AgentStep, meta: Meta): ExecutionLogEvent {
    const payload = stepPayload(kickoffId, step, meta);
    return {
      type: 'step-end',
      data: step.toolCallId === undefined ? payload : { ...payload, tool_call_id: step.toolCallId },
    };
  },

  /** A model's answer; with the tool results that follow it, the journal a crashed task attempt goes on from. */
  modelCallEnded(event: Extract<EngineEvent, { type: 'model-call-end' }>): ExecutionLogEvent {
    const { promptTokens, completionTokens, totalTokens, costUsd, unpricedRequests } = event.usage;
    return {
      type: 'model-call-end',
      data: {
        task_id: event.taskId,
        attempt: event.attempt,
        ...(event.agent === undefined ? {} : { agent: event.agent }),
        ...(event.scope === undefined || event.scope === '' ? {} : { scope: event.scope }),
        model: event.model,
        text: event.answer.text,
        tool_calls: event.answer.toolCalls.map(({ id, name, input }) => ({ id, name, input })),
        usage: {
          prompt_tokens: promptTokens,
          completion_tokens: completionTokens,
          total_tokens: totalTokens,
          // A priced call its cost; a call of a model without a known price says so.
          ...(costUsd === undefined ? {} : { cost_usd: costUsd }),
          ...(unpricedRequests === undefined ? {} : { unpriced: true }),
        },
      },
    };
  },

  /** A guardrail check begins (crewAI's llm_guardrail_started). */
  guardrailStarted(event: Extract<EngineEvent, { type: 'guardrail-start' }>): ExecutionLogEvent {
    return { type: 'guardrail-start', data: guardrailFields(event.check) };
  },

  /** A guardrail check's result (crewAI's llm_guardrail_completed); the journal counts it as done. */
  guardrailEnded(event: Extract<EngineEvent, { type: 'guardrail-end' }>): ExecutionLogEvent {
    return {
      type: 'guardrail-end',
      data: { ...guardrailFields(event.check), success: event.success, error: event.error },
    };
  },

  taskEnded(kickoffId: string, output: TaskOutput, meta: Meta): ExecutionLogEvent {
    return {
      type: 'task-end',
      data: { ...taskPayload(kickoffId, output, output.taskId, meta), attempt: output.attempt },
    };
  },

  humanInputRequested(output: TaskOutput): ExecutionLogEvent {
    return humanInputRequest(output, {});
  },

  /** A budget pause: kept out of the step journal's way, as the task goes on from its steps once approved. */
  budgetReached(output: TaskOutput, reached: BudgetReached): ExecutionLogEvent {
    return humanInputRequest(output, { budget: budgetPauseFields(reached) });
  },

  /** A flow method waits for review: the human-input request, with what the reviewer is asked. */
  methodReviewRequested(output: TaskOutput, review: FlowReviewRequest): ExecutionLogEvent {
    return humanInputRequest(output, {
      message: review.message,
      ...(review.emit === undefined ? {} : { emit: [...review.emit] }),
    });
  },

  methodStarted(method: string): ExecutionLogEvent {
    return { type: 'method-start', data: { method } };
  },

  methodEnded(method: string, result: unknown): ExecutionLogEvent {
    return { type: 'method-end', data: { method, result } };
  },

  methodFailed(method: string, error: string): ExecutionLogEvent {
    return { type: 'method-fail', data: { method, error } };
  },

  executionResumed(feedback: HumanFeedback): ExecutionLogEvent {
    return {
      type: 'execution-resume',
      data: {
        task_id: feedback.taskId,
        attempt: feedback.attempt,
        is_approve: feedback.approved,
        ...(feedback.givenBy === undefined ? {} : { given_by: feedback.givenBy }),
        ...(feedback.budget === undefined ? {} : { kind: 'budget' as const }),
      },
    };
  },

  /** An inner event of a flow's crew or agent run, marked with that run; any other event as it is. */
  inFlowRun(record: ExecutionLogEvent, run: FlowRunTag | undefined): ExecutionLogEvent {
    if (run === undefined) return record;
    return { ...record, data: { ...record.data, flow_run: run } } as ExecutionLogEvent;
  },

  executionEnded(execution: Execution): ExecutionLogEvent {
    const { state } = execution;
    if (!isFinished(state)) throw new Error(`An execution in ${state} has not ended`);
    return { type: 'execution-end', data: { state, result: execution.result, error: execution.error } };
  },
};

function guardrailFields(check: GuardrailCheck): ExecutionLogData<'guardrail-start'> {
  return {
    task_id: check.taskId,
    attempt: check.attempt,
    agent: check.agent,
    guardrail_type: check.guardrailType,
    guardrail: check.guardrail,
    retry_count: check.retryCount,
  };
}

/** A review waits for a person: the task (or method) and its output, with what this kind of review adds. */
function humanInputRequest(
  output: TaskOutput,
  extra: Partial<Pick<ExecutionLogData<'human-input-request'>, 'budget' | 'message' | 'emit'>>,
): ExecutionLogEvent {
  return {
    type: 'human-input-request',
    data: { task_id: output.taskId, output: output.output, attempt: output.attempt, ...extra },
  };
}
