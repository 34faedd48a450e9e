import { z } from 'zod';
import { finishedStates } from './execution.ts';
import { budgetPauseSchema, stepPayloadSchema, taskPayloadSchema } from './webhook-payloads.ts';

/*
 * An execution's event log: what the store keeps, the event stream serves (`GET /executions/{id}/events`), the
 * CLI prints, the console shows and a restarted process reads its completed steps back from. One discriminated
 * union, named noun-then-verb; its data is in the wire's snake_case.
 */

const guardrailCheckSchema = z.object({
  task_id: z.string(),
  attempt: z.number().int(),
  agent: z.string(),
  guardrail_type: z.enum(['llm', 'function']),
  guardrail: z.string(),
  retry_count: z.number().int(),
});

const entry = <Type extends string, Data extends z.ZodType>(type: Type, data: Data) =>
  z.object({ type: z.literal(type), data });

/**
 * In a flow's log, which crew or agent run of which method call an inner event belongs to (the `run`-th of the
 * `call`-th execution of `method`): a restarted process reads each run's completed steps back by it.
 */
const flowRunSchema = z.object({ method: z.string(), call: z.number().int(), run: z.number().int() });
const inFlowRun = { flow_run: flowRunSchema.optional() };

export const executionLogEventSchema = z.discriminatedUnion('type', [
  entry('execution-start', z.object({ state: z.literal('RUNNING') })),
  entry(
    'task-start',
    z.object({ task_id: z.string(), agent: z.string(), attempt: z.number().int(), ...inFlowRun }),
  ),
  /** A model's answer; with the tool results after it, the journal a restarted task attempt goes on from. */
  entry(
    'model-call-end',
    z.object({
      task_id: z.string(),
      attempt: z.number().int(),
      /** The role of the agent that asked. */
      agent: z.string().optional(),
      /** The conversation within the attempt: absent for the task's agent, a delegation's path for a coworker. */
      scope: z.string().optional(),
      model: z.string(),
      text: z.string(),
      tool_calls: z.array(z.object({ id: z.string(), name: z.string(), input: z.unknown() })),
      usage: z.object({
        prompt_tokens: z.number(),
        completion_tokens: z.number(),
        total_tokens: z.number(),
        /** The call's cost in US dollars, when its model has a known price. */
        cost_usd: z.number().optional(),
        /** True when its model has no known price. */
        unpriced: z.literal(true).optional(),
      }),
      ...inFlowRun,
    }),
  ),
  /** The step webhook's payload; `tool_call_id` marks a tool call's result in the journal. */
  entry('step-end', stepPayloadSchema.extend({ tool_call_id: z.string().optional(), ...inFlowRun })),
  entry('guardrail-start', guardrailCheckSchema.extend(inFlowRun)),
  entry(
    'guardrail-end',
    guardrailCheckSchema.extend({ success: z.boolean(), error: z.string().nullable(), ...inFlowRun }),
  ),
  /** The task webhook's payload, with the attempt that produced it. */
  entry('task-end', taskPayloadSchema.extend({ attempt: z.number().int(), ...inFlowRun })),
  entry(
    'human-input-request',
    z.object({
      task_id: z.string(),
      output: z.string(),
      attempt: z.number().int(),
      /** Present on a budget pause: the task waits before its next model call, its completed steps kept. */
      budget: budgetPauseSchema.optional(),
      /** A flow method's review: what the reviewer is asked, and the outcomes to choose from. */
      message: z.string().optional(),
      emit: z.array(z.string()).optional(),
    }),
  ),
  /** A flow method begins (crewAI's method_execution_started). */
  entry('method-start', z.object({ method: z.string() })),
  /** A flow method completed; `result` is what its listeners receive (crewAI's method_execution_finished). */
  entry('method-end', z.object({ method: z.string(), result: z.unknown() })),
  entry('method-fail', z.object({ method: z.string(), error: z.string() })),
  entry(
    'execution-resume',
    z.object({
      task_id: z.string(),
      attempt: z.number().int(),
      is_approve: z.boolean(),
      /** Present when crewd answered the review because its deadline passed; absent when a person did. */
      given_by: z.literal('deadline').optional(),
      /** Present when the answer was to a budget pause: the task goes on from its completed steps. */
      kind: z.literal('budget').optional(),
    }),
  ),
  /** The last entry of every execution's log, written with the state change that ends it. */
  entry(
    'execution-end',
    z.object({ state: z.enum(finishedStates), result: z.string().nullable(), error: z.string().nullable() }),
  ),
]);

/** One entry of an execution's event log. */
export type ExecutionLogEvent = z.infer<typeof executionLogEventSchema>;
export type ExecutionLogEventType = ExecutionLogEvent['type'];
/** The data of the entries of one type. */
export type ExecutionLogData<Type extends ExecutionLogEventType> = Extract<
  ExecutionLogEvent,
  { type: Type }
>['data'];

export const executionLogEventTypes = executionLogEventSchema.options.map(
  (option) => option.shape.type.value,
) as readonly ExecutionLogEventType[];

/** A flow's crew or agent run, as its inner events name it. */
export type FlowRunTag = z.infer<typeof flowRunSchema>;

/** The entries only a flow's executions write: its methods' starts, ends and failures. */
export const flowLogEventTypes: readonly ExecutionLogEventType[] = [
  'method-start',
  'method-end',
  'method-fail',
];
