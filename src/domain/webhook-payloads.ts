import { z } from 'zod';
import { executionStates } from './execution.ts';

/*
 * The shapes crewd sends to webhooks, and keeps in an execution's event log (a step's and a task's entries carry the
 * step and task payloads): one schema each, the types derived from them, shared by the webhooks, the log, the
 * HTTP API's description and the typed client.
 */

const metaSchema = z.record(z.string(), z.unknown()).nullable();
const jsonObjectSchema = z.record(z.string(), z.unknown()).nullable();

/** Sent to `taskWebhookUrl` each time a task produces its answer. */
export const taskPayloadSchema = z.object({
  kickoff_id: z.string(),
  task_id: z.string(),
  name: z.string(),
  description: z.string(),
  expected_output: z.string(),
  summary: z.string(),
  agent: z.string(),
  output: z.string(),
  output_json: jsonObjectSchema,
  meta: metaSchema,
});
export type TaskPayload = z.infer<typeof taskPayloadSchema>;

/** Sent to `stepWebhookUrl` for every agent step: each tool call with its result, and the final answer. */
export const stepPayloadSchema = z.object({
  kickoff_id: z.string(),
  task_id: z.string(),
  agent: z.string(),
  prompt: z.string(),
  thought: z.string(),
  tool: z.string().nullable(),
  tool_input: z.unknown(),
  result: z.string(),
  meta: metaSchema,
});
export type StepPayload = z.infer<typeof stepPayloadSchema>;

/** Sent to `crewWebhookUrl` when an execution ends, whether it succeeded or not. */
export const crewPayloadSchema = z.object({
  kickoff_id: z.string(),
  state: z.enum(executionStates),
  result: z.string().nullable(),
  result_json: jsonObjectSchema,
  error: z.string().nullable(),
  token_usage: z.object({
    total_tokens: z.number(),
    prompt_tokens: z.number(),
    completion_tokens: z.number(),
  }),
  meta: metaSchema,
});
export type CrewPayload = z.infer<typeof crewPayloadSchema>;

/** Sent to `humanInputWebhook.url` when a task waits for feedback, and again after each rejected attempt. */
export const humanInputPayloadSchema = z.object({
  event: z.literal('human_input_requested'),
  execution_id: z.string(),
  kickoff_id: z.string(),
  task_id: z.string(),
  task_name: z.string(),
  agent: z.string(),
  output: z.string(),
  attempt: z.number().int(),
  /** A flow method's review: its human_feedback message, and the outcomes to choose from when it routes. */
  message: z.string().optional(),
  emit: z.array(z.string()).optional(),
  meta: metaSchema,
});
export type HumanInputPayload = z.infer<typeof humanInputPayloadSchema>;

/** A budget pause as the wire shows it: in the human-input request, `pending_human_input` and the event log. */
export const budgetPauseSchema = z.object({
  kind: z.literal('budget'),
  /** `execution`: the execution's own budget; `daily`: its token's budget for the day. */
  scope: z.enum(['execution', 'daily']),
  /** The limit in force: the first amounts times one plus the approvals so far. */
  budget: z.object({ tokens: z.number().optional(), cost_usd: z.number().optional() }),
  spent: z.object({
    tokens: z.number(),
    /** Of the calls whose model has a known price. */
    cost_usd: z.number(),
    /** Calls whose model has no known price: their cost is not counted. */
    unpriced_requests: z.number(),
  }),
});
export type BudgetPauseFields = z.infer<typeof budgetPauseSchema>;

/** The human-input request of a budget pause: what a review's says, and the budget with the spend. */
export const budgetHumanInputPayloadSchema = humanInputPayloadSchema.extend(budgetPauseSchema.shape);

/**
 * Sent to `humanInputWebhook.url` when a review's deadline passed and crewd answered it itself: the request's
 * fields, with the answer given as `/resume` would have carried it.
 */
export const humanInputDeadlinePayloadSchema = humanInputPayloadSchema.extend({
  event: z.literal('human_input_deadline_passed'),
  is_approve: z.boolean(),
  human_feedback: z.string(),
});
export type HumanInputDeadlinePayload = z.infer<typeof humanInputDeadlinePayloadSchema>;
