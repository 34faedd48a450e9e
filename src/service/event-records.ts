import type { AgentStep, EngineEvent } from '../domain/events.ts';
import type { Execution } from '../domain/execution.ts';
import type { HumanFeedback, TaskOutput } from '../domain/task-output.ts';
import type { NewExecutionEvent } from '../store/store.ts';
import { stepPayload, taskPayload } from '../webhooks/payloads.ts';

type Meta = Execution['meta'];

/** The last event of every execution's log, written with the state change that ends it. */
export const executionEndType = 'execution-end';

/** The entries of an execution's event log (served as Server-Sent Events), in the webhook payloads' shapes. */
export const eventRecord = {
  executionStarted(): NewExecutionEvent {
    return { type: 'execution-start', data: { state: 'RUNNING' } };
  },

  taskStarted(event: Extract<EngineEvent, { type: 'task-start' }>): NewExecutionEvent {
    return {
      type: 'task-start',
      data: { task_id: event.taskId, agent: event.agent, attempt: event.attempt },
    };
  },

  stepEnded(kickoffId: string, step: AgentStep, meta: Meta): NewExecutionEvent {
    return { type: 'step-end', data: stepPayload(kickoffId, step, meta) };
  },

  /** Streamed to event streaming targets only: model calls are not part of the event log. */
  modelCallEnded(event: Extract<EngineEvent, { type: 'model-call-end' }>): NewExecutionEvent {
    const { usage } = event;
    return {
      type: 'model-call-end',
      data: {
        task_id: event.taskId,
        model: event.model,
        usage: {
          prompt_tokens: usage.promptTokens,
          completion_tokens: usage.completionTokens,
          total_tokens: usage.totalTokens,
        },
      },
    };
  },

  taskEnded(kickoffId: string, output: TaskOutput, meta: Meta): NewExecutionEvent {
    return {
      type: 'task-end',
      data: { ...taskPayload(kickoffId, output, output.taskId, meta), attempt: output.attempt },
    };
  },

  humanInputRequested(output: TaskOutput): NewExecutionEvent {
    return {
      type: 'human-input-request',
      data: { task_id: output.taskId, output: output.output, attempt: output.attempt },
    };
  },

  executionResumed(feedback: HumanFeedback): NewExecutionEvent {
    return {
      type: 'execution-resume',
      data: { task_id: feedback.taskId, attempt: feedback.attempt, is_approve: feedback.approved },
    };
  },

  executionEnded(execution: Execution): NewExecutionEvent {
    return {
      type: executionEndType,
      data: { state: execution.state, result: execution.result, error: execution.error },
    };
  },
};
