import type { EventStreamTarget, HumanInputWebhook, WebhookTargets } from '../domain/execution.ts';
import { assertCredentialsSafe } from '../webhooks/payloads.ts';
import type { KickoffBody } from './request-schemas.ts';
import { toHumanInputWebhook } from './request-schemas.ts';
import { toEventStreamTarget } from './webhook-fields.ts';

/** The webhook targets a kickoff body (or a schedule's, which takes the same fields) asks for, checked. */
export function kickoffWebhooks(
  body: Pick<
    KickoffBody,
    | 'taskWebhookUrl'
    | 'stepWebhookUrl'
    | 'crewWebhookUrl'
    | 'humanInputWebhook'
    | 'humanInputWebhookUrl'
    | 'webhooks'
  >,
): WebhookTargets {
  const humanInput = toHumanInputWebhook(body.humanInputWebhook, body.humanInputWebhookUrl);
  checkCredentials(humanInput);
  const events = toEventStreamTarget(body.webhooks);
  checkStreamCredentials(events);
  return {
    taskUrl: body.taskWebhookUrl ?? null,
    stepUrl: body.stepWebhookUrl ?? null,
    crewUrl: body.crewWebhookUrl ?? null,
    humanInput,
    ...(events === null ? {} : { events }),
  };
}

/** Refuses credentials that could not be sent safely in a header. */
export function checkCredentials(humanInput: HumanInputWebhook | null): void {
  if (humanInput?.authentication !== undefined) assertCredentialsSafe(humanInput.authentication);
}

export function checkStreamCredentials(events: EventStreamTarget | null): void {
  if (events?.authentication !== undefined) {
    assertCredentialsSafe(events.authentication, 'webhooks.authentication');
  }
}
