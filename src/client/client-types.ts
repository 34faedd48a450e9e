import type { z } from 'zod';
import type { ExecutionLogEvent } from '../domain/execution-log.ts';
import type { crewDescriptionSchema } from '../api/crew-description.ts';
import type { executionDetailSchema } from '../api/execution-detail.ts';
import type { kickoffBodySchema, resumeBodySchema } from '../api/request-schemas.ts';
import type { scheduleBodySchema, scheduleListSchema, scheduleViewSchema } from '../api/schedule-schemas.ts';
import type {
  deliveryListSchema,
  executionListSchema,
  inputsResponseSchema,
  kickoffResponseSchema,
  resumeResponseSchema,
  statusViewSchema,
} from '../api/response-schemas.ts';
import type { servedListSchema } from '../api/routes/served-crews-route.ts';
import type { stepPayloadSchema } from '../domain/webhook-payloads.ts';

/*
 * The client's types come from the zod schemas that validate the server's requests and responses, which are also
 * the source of its OpenAPI description: a change to the API changes these types, so the two cannot drift apart.
 * Only types are imported; the client carries no schema code at run time.
 */

/** The body of `POST /kickoff`. */
export type KickoffRequest = z.input<typeof kickoffBodySchema>;
export type KickoffResponse = z.output<typeof kickoffResponseSchema>;
/** The body of `POST /resume` (snake_case, or the camelCase older clients send). */
export type ResumeRequest = z.input<typeof resumeBodySchema>;
export type ResumeResponse = z.output<typeof resumeResponseSchema>;
/** What `GET /status/{id}` answers. */
export type ExecutionStatus = z.output<typeof statusViewSchema>;
export type ExecutionState = ExecutionStatus['state'];
/** An accepted task output, as `tasks` and `last_executed_task` of the status (and the task webhook) carry it. */
export type TaskPayload = ExecutionStatus['tasks'][number];
/** An agent step, as `last_step` of the status (and the step webhook) carries it. */
export type StepPayload = z.output<typeof stepPayloadSchema>;
/** A file a task's `output_file` saved; `url` needs the same bearer token as the API. */
export type OutputFile = ExecutionStatus['output_files'][number];
/** What `GET /executions/{id}` answers: the status plus inputs, feedback, timeline and the leg's webhooks. */
export type ExecutionDetail = z.output<typeof executionDetailSchema>;
/** A review given at a human-input task, as the detail lists them. */
export type Feedback = ExecutionDetail['feedback'][number];
/** A task attempt, as the detail's timeline lists them. */
export type TimelineEntry = ExecutionDetail['timeline'][number];
export type ExecutionList = z.output<typeof executionListSchema>;
/** `GET /executions` parameters; `limit` is 1 to 100 (20 unless given). */
export interface ListQuery {
  readonly state?: ExecutionState;
  readonly limit?: number;
  readonly cursor?: string;
}
export type InputsResponse = z.output<typeof inputsResponseSchema>;
export type DeliveryList = z.output<typeof deliveryListSchema>;
/** A webhook message with its delivery attempts. */
export type Delivery = DeliveryList['items'][number];
/** What `GET /crew` answers: the crew's agents, tasks and inputs. */
export type CrewDescription = z.output<typeof crewDescriptionSchema>;

/**
 * One entry of an execution's event log, as `GET /executions/{id}/events` streams it: the union of
 * `src/domain/execution-log.ts` (discriminated by `type`), with its sequence.
 */
export type ExecutionEvent = ExecutionLogEvent & {
  /** 1, 2, 3… within the execution; resume after it with `lastEventId`. */
  readonly id: number;
};

/** The body of `POST /schedules`: a kickoff's fields, with `cron` and an optional `timezone` and `name`. */
export type ScheduleRequest = z.input<typeof scheduleBodySchema>;
/** A schedule as `/schedules` answers it. */
export type ScheduleView = z.output<typeof scheduleViewSchema>;
export type ScheduleList = z.output<typeof scheduleListSchema>;
/** `GET /crews`: what a server serves, each with its base URL and inputs. */
export type ServedCrewList = z.output<typeof servedListSchema>;
