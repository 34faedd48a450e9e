import type { ExecutionLogData, ExecutionLogEvent } from '../domain/execution-log.ts';

/** One event as the hosted platform's event streaming sends it, before its id and timestamp are given. */
export interface StreamEventBody {
  /** crewAI's event type name, e.g. `task_completed`. */
  readonly type: string;
  readonly data: Record<string, unknown>;
}

/** What an event record alone does not say. */
export interface StreamEventContext {
  readonly crewName: string;
  /** A flow's executions start, pause and end with crewAI's flow events instead of the crew's. */
  readonly kind?: 'crew' | 'flow';
  readonly inputs: Readonly<Record<string, unknown>>;
  /** True when the change that carries the record starts the execution for the first time. */
  readonly firstStart: boolean;
  readonly totalTokens: number;
}

/** The crewAI event types crewd streams, in the order they happen in a run. */
export const streamEventTypes = [
  'crew_kickoff_started',
  'task_started',
  'agent_execution_started',
  'llm_call_completed',
  'tool_usage_finished',
  'llm_guardrail_started',
  'llm_guardrail_completed',
  'agent_execution_completed',
  'task_completed',
  'crew_kickoff_completed',
  'crew_kickoff_failed',
  'flow_started',
  'method_execution_started',
  'method_execution_finished',
  'method_execution_failed',
  'method_execution_paused',
  'flow_paused',
  'flow_finished',
  'flow_failed',
] as const;

type Data<Type extends ExecutionLogEvent['type']> = ExecutionLogData<Type>;

/**
 * crewAI's events for one entry of crewd's event log ,
 * with the payload fields of crewAI's event classes that crewd knows. A task's `task_id` is its name in
 * tasks.yaml, as everywhere in crewd; `task_name` repeats it, as crewAI names tasks.
 */
export function toStreamEvents(record: ExecutionLogEvent, context: StreamEventContext): StreamEventBody[] {
  if (context.kind === 'flow') {
    const flowEvents = toFlowEvents(record, context);
    if (flowEvents !== undefined) return flowEvents;
  }
  const { type, data } = record;
  switch (type) {
    case 'method-start':
    case 'method-end':
    case 'method-fail':
      return [];
    case 'execution-start':
      // A resumed or recovered leg starts again; crewAI's kickoff event marks only the first start.
      return context.firstStart
        ? [{ type: 'crew_kickoff_started', data: { crew_name: context.crewName, inputs: context.inputs } }]
        : [];
    case 'task-start': {
      const task = taskFields(data);
      return [
        { type: 'task_started', data: { ...task, attempt: data.attempt } },
        { type: 'agent_execution_started', data: task },
      ];
    }
    case 'model-call-end':
      return [
        {
          type: 'llm_call_completed',
          data: {
            task_id: data.task_id,
            task_name: data.task_id,
            model: data.model,
            call_type: 'llm_call',
            usage: data.usage,
          },
        },
      ];
    case 'guardrail-start':
      return [{ type: 'llm_guardrail_started', data: guardrailEventFields(data) }];
    case 'guardrail-end':
      return [
        {
          type: 'llm_guardrail_completed',
          data: { ...guardrailEventFields(data), success: data.success, error: data.error },
        },
      ];
    case 'step-end':
      return data.tool === null ? [agentCompleted(data)] : [toolFinished(data)];
    case 'task-end':
      return [taskCompleted(data)];
    case 'execution-end':
      return [crewEnded(data, context)];
    case 'human-input-request':
    case 'execution-resume':
      // No crewAI counterpart.
      return [];
  }
}

function taskFields(data: { readonly task_id: string; readonly agent?: string }): Record<string, unknown> {
  return { task_id: data.task_id, task_name: data.task_id, agent_role: data.agent };
}

/** crewAI's guardrail event fields: `guardrail` is the description, or the function's name. */
function guardrailEventFields(data: Data<'guardrail-start'>): Record<string, unknown> {
  return {
    ...taskFields(data),
    guardrail: data.guardrail,
    guardrail_type: data.guardrail_type,
    guardrail_name: data.guardrail,
    retry_count: data.retry_count,
  };
}

function agentCompleted(data: Data<'step-end'>): StreamEventBody {
  return { type: 'agent_execution_completed', data: { ...taskFields(data), output: data.result } };
}

function toolFinished(data: Data<'step-end'>): StreamEventBody {
  return {
    type: 'tool_usage_finished',
    data: { ...taskFields(data), tool_name: data.tool, tool_args: data.tool_input, output: data.result },
  };
}

function taskCompleted(data: Data<'task-end'>): StreamEventBody {
  const json = data.output_json;
  return {
    type: 'task_completed',
    data: {
      ...taskFields(data),
      // Shaped like crewAI's TaskOutput.
      output: {
        name: data.task_id,
        description: data.description,
        expected_output: data.expected_output,
        summary: data.summary,
        raw: data.output,
        json_dict: json,
        agent: data.agent,
        output_format: json === null ? 'raw' : 'json',
      },
    },
  };
}

function crewEnded(data: Data<'execution-end'>, context: StreamEventContext): StreamEventBody {
  const crew_name = context.crewName;
  switch (data.state) {
    case 'SUCCESS':
      return {
        type: 'crew_kickoff_completed',
        data: { crew_name, output: data.result, total_tokens: context.totalTokens },
      };
    case 'REVOKED':
      return { type: 'crew_kickoff_failed', data: { crew_name, error: 'The execution was cancelled' } };
    case 'FAILED':
      return {
        type: 'crew_kickoff_failed',
        data: { crew_name, error: data.error ?? 'The execution failed' },
      };
  }
}

/**
 * crewAI's flow events (events/types/flow_events.py) for the entries of a flow's log that differ from a crew's;
 * undefined for the others (the tasks of the crews its methods run stream as a crew's do).
 */
function toFlowEvents(record: ExecutionLogEvent, context: StreamEventContext): StreamEventBody[] | undefined {
  const flow_name = context.crewName;
  switch (record.type) {
    case 'execution-start':
      return context.firstStart
        ? [{ type: 'flow_started', data: { flow_name, inputs: context.inputs } }]
        : [];
    case 'method-start':
      return [{ type: 'method_execution_started', data: { flow_name, method_name: record.data.method } }];
    case 'method-end':
      return [
        {
          type: 'method_execution_finished',
          data: { flow_name, method_name: record.data.method, result: record.data.result },
        },
      ];
    case 'method-fail':
      return [
        {
          type: 'method_execution_failed',
          data: { flow_name, method_name: record.data.method, error: record.data.error },
        },
      ];
    case 'human-input-request': {
      const review = {
        flow_name,
        method_name: record.data.task_id,
        output: record.data.output,
        message: record.data.message ?? '',
        emit: record.data.emit ?? null,
      };
      return [
        { type: 'method_execution_paused', data: review },
        { type: 'flow_paused', data: review },
      ];
    }
    case 'execution-end':
      return record.data.state === 'SUCCESS'
        ? [{ type: 'flow_finished', data: { flow_name, result: record.data.result } }]
        : [
            {
              type: 'flow_failed',
              data: {
                flow_name,
                error:
                  record.data.state === 'REVOKED'
                    ? 'The execution was cancelled'
                    : (record.data.error ?? 'The execution failed'),
              },
            },
          ];
    case 'task-start':
    case 'model-call-end':
    case 'step-end':
    case 'guardrail-start':
    case 'guardrail-end':
    case 'task-end':
    case 'execution-resume':
      return undefined;
  }
}
