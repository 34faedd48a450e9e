import { z } from 'zod';
import type { CrewDefinition } from '../domain/crew.ts';
import type { Execution } from '../domain/execution.ts';
import type { StoredExecutionEvent } from '../store/store.ts';
import { legWebhooksSchema, toLegWebhooks } from './leg-webhooks-view.ts';
import { statusViewSchema } from './response-schemas.ts';
import { toStatusView } from './status-view.ts';

const timelineEntrySchema = z.object({
  task_id: z.string(),
  agent: z.string(),
  attempt: z.number().int(),
  started_at: z.string(),
  ended_at: z.string().nullable().describe('null while the attempt runs, or when it was stopped'),
  total_tokens: z
    .number()
    .int()
    .nullable()
    .describe('Tokens of an accepted or pending output; null for attempts that were rejected or stopped'),
});
export type TimelineEntry = z.infer<typeof timelineEntrySchema>;

/** `GET /executions/{id}`: the status view plus what a person looking at one execution needs. */
export const executionDetailSchema = statusViewSchema.extend({
  inputs: z.record(z.string(), z.unknown()),
  feedback: z
    .array(
      z.object({
        task_id: z.string(),
        attempt: z.number().int(),
        feedback: z.string(),
        approved: z.boolean(),
        given_by: z.enum(['person', 'deadline']),
      }),
    )
    .describe('Feedback given on /resume, oldest first'),
  timeline: z.array(timelineEntrySchema).describe('Every task attempt in the order it started'),
  last_event_id: z.number().int().describe('Stream events after this one to follow the execution live'),
  webhooks: legWebhooksSchema,
});
export type ExecutionDetail = z.infer<typeof executionDetailSchema>;

export function toExecutionDetail(
  execution: Execution,
  crew: CrewDefinition,
  events: readonly StoredExecutionEvent[],
  now: Date,
): ExecutionDetail {
  return {
    ...toStatusView(execution, crew, now),
    inputs: { ...execution.inputs },
    feedback: execution.feedback.map((given) => ({
      task_id: given.taskId,
      attempt: given.attempt,
      feedback: given.text,
      approved: given.approved,
      given_by: given.givenBy ?? 'person',
    })),
    timeline: buildTimeline(execution, events),
    last_event_id: events.at(-1)?.sequence ?? 0,
    webhooks: toLegWebhooks(execution.webhooks),
  };
}

interface OpenAttempt {
  readonly taskId: string;
  readonly agent: string;
  readonly attempt: number;
  readonly startedAt: Date;
  endedAt: Date | null;
}

/** Pairs each `task-start` with the `task-end` of the same task and attempt that follows it. */
function buildTimeline(execution: Execution, events: readonly StoredExecutionEvent[]): TimelineEntry[] {
  const attempts: OpenAttempt[] = [];
  for (const event of events) {
    const data = event.data as Record<string, unknown>;
    const taskId = typeof data.task_id === 'string' ? data.task_id : null;
    const attempt = typeof data.attempt === 'number' ? data.attempt : null;
    if (taskId === null || attempt === null) continue;
    if (event.type === 'task-start') {
      const agent = typeof data.agent === 'string' ? data.agent : '';
      attempts.push({ taskId, agent, attempt, startedAt: event.createdAt, endedAt: null });
    } else if (event.type === 'task-end') {
      const open = attempts.findLast((entry) => entry.taskId === taskId && entry.attempt === attempt);
      if (open !== undefined) open.endedAt ??= event.createdAt;
    }
  }
  const produced = [...execution.outputs, ...(execution.pending === null ? [] : [execution.pending.output])];
  return attempts.map((entry) => {
    const output = produced.find(
      (candidate) => candidate.taskId === entry.taskId && candidate.attempt === entry.attempt,
    );
    return {
      task_id: entry.taskId,
      agent: entry.agent,
      attempt: entry.attempt,
      started_at: entry.startedAt.toISOString(),
      ended_at: entry.endedAt?.toISOString() ?? null,
      total_tokens: output?.usage.totalTokens ?? null,
    };
  });
}
