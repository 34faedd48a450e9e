import { z } from 'zod';
import { parseDuration } from '../domain/duration.ts';
import { executionStates } from '../domain/execution.ts';
import type { Budget } from '../domain/budget.ts';
import type { ReviewDeadline } from '../domain/review-deadline.ts';
import type { HumanInputWebhook } from '../domain/execution.ts';
import {
  eventStreamSchema,
  humanInputWebhookSchema,
  optionalWebhookUrl,
  toEventStreamTarget,
} from './webhook-fields.ts';
import type { HumanInputWebhookField } from './webhook-fields.ts';

/** Request schemas: they validate requests and are the source of the OpenAPI description. */

const jsonObject = z.record(z.string(), z.unknown());

/**
 * Size limits below the 1 MiB body limit, so what one request leaves in the store, in every status body and every
 * webhook stays small: `meta` comes back with every task of every status and webhook.
 */
export const requestFieldLimits = { inputsBytes: 256 * 1024, metaBytes: 16 * 1024, feedbackBytes: 64 * 1024 };

const kib = (bytes: number): string => `${bytes / 1024} KiB`;
const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '');
const atMost = <T extends z.ZodType>(schema: T, bytes: number, name: string) =>
  schema.refine((value) => jsonBytes(value) <= bytes, `${name} must be at most ${kib(bytes)} as JSON`);

const deadlineOutcomeMessage = 'humanInputDeadline.onDeadline must be "approve" or {"reject": "<feedback>"}';

/** A review deadline for every human-input task of one execution, in place of tasks.yaml's. */
const reviewDeadlineField = z
  .object({
    after: z
      .string()
      .refine((value) => parseDuration(value) !== undefined, {
        message: 'humanInputDeadline.after must be a duration such as 30m, 12h or 2d',
      })
      .describe('How long each review may wait: 90s, 45m, 2h, 3d or 1w'),
    onDeadline: z
      .union([z.literal('approve'), z.strictObject({ reject: z.string().trim().min(1) })], {
        error: deadlineOutcomeMessage,
      })
      .describe('What answers the review then: "approve", or {"reject": "<feedback>"} to run the task again'),
  })
  .nullable()
  .optional()
  .describe(
    "Answers this execution's reviews when nobody has in time, in place of tasks.yaml's human_input_deadline",
  );

/** The kickoff's review deadline as the domain holds it; undefined when the kickoff gave none. */
export function toReviewDeadline(field: KickoffBody['humanInputDeadline']): ReviewDeadline | undefined {
  if (field == null) return undefined;
  const afterMs = parseDuration(field.after)!;
  const { onDeadline } = field;
  return {
    afterMs,
    outcome: onDeadline === 'approve' ? { approve: true } : { approve: false, feedback: onDeadline.reject },
  };
}

const budgetTokens = z
  .int({ error: 'budget.tokens must be a whole number' })
  .positive({ error: 'budget.tokens must be more than 0' });
const budgetUsd = z
  .number({ error: 'budget.cost_usd must be a number' })
  .positive({ error: 'budget.cost_usd must be more than 0' });

/** What one execution may spend before it pauses for approval, in place of crew.yaml's `budget`. */
const budgetField = z
  .strictObject({
    tokens: budgetTokens.optional().describe('Tokens (prompt and completion) the execution may spend'),
    cost_usd: budgetUsd
      .optional()
      .describe("US dollars, at the price table's prices, the execution may spend"),
    costUsd: budgetUsd.optional(),
  })
  .refine((budget) => budget.tokens !== undefined || (budget.cost_usd ?? budget.costUsd) !== undefined, {
    error: 'budget must set tokens, cost_usd or both',
  })
  .nullable()
  .optional()
  .describe(
    "Pauses the execution for approval before a model call that could pass it; replaces crew.yaml's budget",
  );

/** The kickoff's budget as the domain holds it; undefined when the kickoff gave none. */
export function toBudget(field: KickoffBody['budget']): Budget | undefined {
  if (field == null) return undefined;
  const costUsd = field.cost_usd ?? field.costUsd;
  return {
    ...(field.tokens === undefined ? {} : { tokens: field.tokens }),
    ...(costUsd === undefined ? {} : { costUsd }),
  };
}

const restoreFromStateIdField = z.string().min(1).max(255).optional();

export const kickoffBodySchema = z.object({
  inputs: atMost(jsonObject, requestFieldLimits.inputsBytes, 'inputs').describe(
    "Values for the crew's placeholders; see GET /inputs (at most 256 KiB as JSON)",
  ),
  meta: atMost(jsonObject, requestFieldLimits.metaBytes, 'meta')
    .nullable()
    .optional()
    .describe('Free-form metadata, returned in status and every webhook (at most 16 KiB as JSON)'),
  taskWebhookUrl: optionalWebhookUrl,
  stepWebhookUrl: optionalWebhookUrl,
  crewWebhookUrl: optionalWebhookUrl,
  humanInputWebhook: humanInputWebhookSchema,
  humanInputWebhookUrl: optionalWebhookUrl.describe('Older form of humanInputWebhook.url'),
  webhooks: eventStreamSchema,
  humanInputDeadline: reviewDeadlineField,
  budget: budgetField,
  restoreFromStateId: restoreFromStateIdField.describe(
    'A flow with flow-level persist starts from the latest state saved under this state id (by an execution of the flow the token can see; otherwise a fresh state), under a new state id, or inputs.id when given. Crews and flows without persist ignore it',
  ),
  restore_from_state_id: restoreFromStateIdField.describe('snake_case form of restoreFromStateId'),
});
export type KickoffBody = z.infer<typeof kickoffBodySchema>;

/** Fields the hosted service names in snake_case that older clients send in camelCase. */
const resumeAliases = [
  ['execution_id', 'executionId'],
  ['task_id', 'taskId'],
  ['human_feedback', 'humanFeedback'],
  ['is_approve', 'isApprove'],
] as const;

export const resumeBodySchema = z
  .object({
    execution_id: z.string().min(1).optional().describe('The kickoff_id of the paused execution'),
    executionId: z.string().min(1).optional(),
    task_id: z.string().min(1).optional().describe('The task waiting for feedback'),
    taskId: z.string().min(1).optional(),
    human_feedback: atMost(z.string(), requestFieldLimits.feedbackBytes, 'human_feedback')
      .optional()
      .describe(
        'Required (may be empty): added to the context of later tasks, or of the retried task (at most 64 KiB)',
      ),
    humanFeedback: atMost(z.string(), requestFieldLimits.feedbackBytes, 'humanFeedback').optional(),
    is_approve: z
      .boolean()
      .optional()
      .describe('true continues; false runs the task again with the feedback'),
    isApprove: z.boolean().optional(),
    taskWebhookUrl: optionalWebhookUrl,
    stepWebhookUrl: optionalWebhookUrl,
    crewWebhookUrl: optionalWebhookUrl,
    humanInputWebhook: humanInputWebhookSchema.describe('Replaces the human input webhook given at kickoff'),
    humanInputWebhookUrl: optionalWebhookUrl.describe('Older form of humanInputWebhook.url'),
    webhooks: eventStreamSchema.describe(
      'Event streaming for the rest of the execution; not repeated, it stops',
    ),
  })
  .superRefine((body, context) => {
    for (const [snake, camel] of resumeAliases) {
      if (body[snake] === undefined && body[camel] === undefined) {
        context.addIssue({ code: 'custom', path: [snake], message: 'is required' });
      }
    }
  })
  .transform((body) => ({
    // The checks above guarantee one spelling of each required field.
    executionId: body.execution_id ?? body.executionId ?? '',
    taskId: body.task_id ?? body.taskId ?? '',
    feedback: body.human_feedback ?? body.humanFeedback ?? '',
    approve: body.is_approve ?? body.isApprove ?? false,
    taskUrl: body.taskWebhookUrl ?? null,
    stepUrl: body.stepWebhookUrl ?? null,
    crewUrl: body.crewWebhookUrl ?? null,
    humanInput: toHumanInputWebhook(body.humanInputWebhook, body.humanInputWebhookUrl),
    events: toEventStreamTarget(body.webhooks),
  }));

export const kickoffIdParamsSchema = z.object({ kickoffId: z.string().min(1) });
export const executionIdParamsSchema = z.object({ id: z.string().min(1) });

export const listQuerySchema = z.object({
  state: z.enum(executionStates).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).optional().describe('next_cursor from the previous page'),
});

export const eventsQuerySchema = z.object({
  last_event_id: z
    .string()
    .regex(/^\d+$/, 'must be a non-negative integer')
    .optional()
    .describe('Sequence of the last event seen; the Last-Event-ID header takes precedence'),
});

/** The human-input target from the object form, or else from the older plain URL field. */
export function toHumanInputWebhook(
  field: HumanInputWebhookField,
  legacyUrl: string | null | undefined,
): HumanInputWebhook | null {
  if (field !== null && field !== undefined) {
    const authentication = field.authentication ?? undefined;
    return authentication === undefined ? { url: field.url } : { url: field.url, authentication };
  }
  return legacyUrl === null || legacyUrl === undefined ? null : { url: legacyUrl };
}
