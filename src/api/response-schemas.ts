import { z } from 'zod';
import { budgetPauseSchema } from '../domain/webhook-payloads.ts';
import { executionStates } from '../domain/execution.ts';
import { stepPayloadSchema, taskPayloadSchema } from '../domain/webhook-payloads.ts';

/** Response schemas: they shape what the API sends and describe it in the OpenAPI document. */

const jsonObject = z.record(z.string(), z.unknown());
const meta = jsonObject.nullable().describe('The meta object given at kickoff');

export const errorBodySchema = z.object({
  error: z.string().describe('Short title, e.g. "Invalid Request"'),
  message: z.string().describe('What went wrong'),
  code: z.string().describe('Stable UPPER_SNAKE code'),
  details: jsonObject.optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

export const statusViewSchema = z.object({
  kickoff_id: z.string(),
  state: z.enum(executionStates),
  status: z.string().describe('A sentence for people; exactly "Pending Human Input" while paused'),
  result: z.string().nullable().describe("The final task's output; the error text when FAILED"),
  result_json: jsonObject.nullable(),
  error: z.string().nullable(),
  current_task: z.string().nullable(),
  progress: z.object({
    completed: z.number().int(),
    total: z.number().int(),
    remaining: z.number().int(),
    current: z.string().nullable(),
    current_agent: z.string().nullable(),
  }),
  last_step: stepPayloadSchema.nullable().describe('The latest agent step, shaped like the step webhook'),
  last_executed_task: taskPayloadSchema
    .nullable()
    .describe('The latest task output, shaped like the task webhook'),
  tasks: z.array(taskPayloadSchema).describe('Accepted task outputs in task order'),
  output_files: z
    .array(
      z.object({
        task_id: z.string(),
        path: z.string().describe("Where the task's output_file is in the execution's workspace"),
        size: z.number().int().describe('Bytes'),
        url: z.string().describe('Download path, relative to the base URL; same bearer token as /status'),
      }),
    )
    .describe("Files the tasks' output_file saved, including the answer awaiting review"),
  pending_human_input: z
    .object({
      task_id: z.string(),
      output: z.string(),
      attempt: z.number().int(),
      message: z.string().optional().describe("A flow method's review: its human_feedback message"),
      emit: z
        .array(z.string())
        .optional()
        .describe(
          "A flow method's review: the outcomes feedback is mapped to (absent when it does not route)",
        ),
      deadline: z
        .object({
          at: z.string().describe('When crewd answers the review itself if nobody has'),
          is_approve: z.boolean().describe('The answer it gives then'),
          human_feedback: z
            .string()
            .describe('The feedback it gives with a rejection (empty with an approval)'),
        })
        .optional()
        .describe("Present when the task has a review deadline (tasks.yaml's human_input_deadline)"),
      ...budgetPauseSchema.partial().shape,
    })
    .nullable()
    .describe(
      'The review waiting for /resume; with kind "budget", a budget about to be passed: approving extends it ' +
        'by its first amounts, rejecting ends the execution REVOKED',
    ),
  reviews: z
    .array(
      z.object({
        task_id: z.string(),
        attempt: z.number().int(),
        is_approve: z.boolean(),
        given_by: z.enum(['person', 'deadline']),
        kind: z.literal('budget').optional().describe('Present for an answer to a budget pause'),
      }),
    )
    .describe('Every answer to a review so far, oldest first: by a person on /resume, or by its deadline'),
  usage_metrics: z.object({
    total_tokens: z.number().int(),
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    successful_requests: z.number().int(),
    total_cost_usd: z
      .number()
      .nullable()
      .describe("US dollars at the price table's prices; null when a call's model has no known price"),
    unpriced_requests: z.number().int().describe('Model calls whose model has no known price'),
  }),
  budget: z
    .object({ tokens: z.number().optional(), cost_usd: z.number().optional() })
    .nullable()
    .describe("The execution's budget in force (its first amounts times one plus the approvals); null: none"),
  flow_state: jsonObject
    .optional()
    .describe("A flow execution's state object as its methods left it (absent for a crew's)"),
  flow_methods: z
    .array(z.string())
    .optional()
    .describe("A flow execution's completed methods in the order they ran: the route it took"),
  execution_time: z.number().nullable().describe('Seconds from start to finish (or to now while running)'),
  created_at: z.string(),
  updated_at: z.string(),
  meta,
});
export type StatusView = z.infer<typeof statusViewSchema>;

export const kickoffResponseSchema = z.object({ kickoff_id: z.string() });

export const resumeResponseSchema = z.object({
  status: z.enum(['resumed', 'retrying', 'completed']),
  message: z.string(),
});

export const inputsResponseSchema = z.object({ inputs: z.array(z.string()) });

export const executionListSchema = z.object({
  items: z.array(statusViewSchema),
  next_cursor: z.string().nullable(),
});

export const deliveryListSchema = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      kind: z.enum(['task', 'step', 'crew', 'human_input', 'events', 'a2a']),
      url: z
        .string()
        .describe(
          'Without its credentials: user name and password, secret query values and token-like path segments',
        ),
      status: z.enum(['pending', 'delivered', 'failed']),
      created_at: z.string(),
      attempts: z.array(
        z.object({
          attempt: z.number().int(),
          at: z.string(),
          status_code: z.number().int().nullable(),
          error: z.string().nullable(),
          duration_ms: z.number(),
        }),
      ),
    }),
  ),
});
export type DeliveryList = z.infer<typeof deliveryListSchema>;

export const healthSchema = z.object({ status: z.string() });

/** Readiness: the store answers; the tool sources say whether each can be called (a down one does not fail it). */
export const readinessSchema = healthSchema.extend({
  tools: z
    .array(z.object({ source: z.string(), up: z.boolean(), reason: z.string().optional() }))
    .describe(
      'Each tool source (built-in tools, the tools/ directory, every MCP server) and whether it is up',
    ),
});
