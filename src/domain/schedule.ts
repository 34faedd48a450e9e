import type { WebhookTargets } from './execution.ts';

/** Who made a schedule: its executions are started as that token's, and user tokens see only their own. */
export interface ScheduleOwner {
  readonly tokenId: string;
  readonly kind: 'org' | 'user';
  readonly userId: string | null;
}

/**
 * A crew's kickoff repeated on a cron expression in a time zone. Each tick starts exactly one execution, whichever
 * processes are running; `lastDueAt` is the latest tick already started, so a restart neither repeats nor loses one.
 */
export interface Schedule {
  readonly id: string;
  /** The crew (or flow) it starts, by its served name. */
  readonly crew: string;
  readonly name: string | null;
  readonly cron: string;
  /** An IANA time zone such as `Europe/Paris`; the cron expression is read in it. */
  readonly timezone: string;
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly meta: Readonly<Record<string, unknown>> | null;
  readonly webhooks: WebhookTargets;
  readonly paused: boolean;
  readonly owner: ScheduleOwner;
  readonly createdAt: Date;
  readonly lastDueAt: Date | null;
}

/**
 * A named entry point another system posts events to. The request is signed with the trigger's secret (Standard
 * Webhooks) or carries a bearer token; its JSON body becomes the execution's `crewai_trigger_payload`.
 */
export interface Trigger {
  readonly name: string;
  /** The one crew it may start, by served name; null lets it start whichever crew's URL it is posted to. */
  readonly crew: string | null;
  /** The `whsec_…` secret requests are signed with; shown once when the trigger is made. */
  readonly secret: string;
  /** Inputs every execution it starts gets, beside the payload. */
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly createdAt: Date;
}
