import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { reachesCrew } from '../domain/crew-name.ts';
import { CrewdError } from '../domain/errors.ts';
import { noWebhooks } from '../domain/execution.ts';
import type { Trigger } from '../domain/schedule.ts';
import { triggerPayloadInput } from '../engine/trigger-payload.ts';
import type { ScheduleStore } from '../store/schedule-store.ts';
import type { Caller, ExecutionService } from './execution-service.ts';

/** An event posted to `{base_url}/triggers/<name>`. */
export interface TriggerEvent {
  readonly name: string;
  /** The body exactly as sent: the signature covers these bytes. */
  readonly rawBody: string;
  readonly payload: unknown;
  /** The Standard Webhooks headers, where sent. */
  readonly webhookId: string | undefined;
  readonly webhookTimestamp: string | undefined;
  readonly webhookSignature: string | undefined;
  /** The caller of a bearer token sent with the request, if any. */
  readonly caller: Caller | null;
}

export interface TriggerServiceDeps {
  readonly store: Pick<ScheduleStore, 'findTrigger'>;
  readonly executions: Pick<ExecutionService, 'kickoff'>;
  /** The served name of the crew this base URL starts. */
  readonly crew: string;
}

/**
 * Starts executions from other systems' events. A request is signed with the trigger's secret (Standard Webhooks:
 * its `webhook-id` makes a repeated delivery start nothing new) or carries a bearer token; anything else, and a
 * trigger that does not exist here, is refused alike, so an unsigned caller learns nothing of which names exist.
 */
export class TriggerService {
  readonly #deps: TriggerServiceDeps;

  constructor(deps: TriggerServiceDeps) {
    this.#deps = deps;
  }

  async fire(sent: TriggerEvent): Promise<{ readonly kickoffId: string }> {
    // The route checks its token itself; one limited to other crews, or made for deploying, counts as none here.
    const { caller: sentCaller } = sent;
    const reaches =
      sentCaller !== null && sentCaller.deploy !== true && reachesCrew(sentCaller.crews, this.#deps.crew);
    const event: TriggerEvent = { ...sent, caller: reaches ? sentCaller : null };
    const found = await this.#deps.store.findTrigger(event.name);
    const trigger = found !== null && (found.crew === null || found.crew === this.#deps.crew) ? found : null;
    if (trigger === null) {
      if (event.caller === null || event.webhookSignature !== undefined) throw unauthorized();
      throw new CrewdError('NOT_FOUND', `No trigger named ${event.name}`);
    }
    const caller = callerOf(trigger, event);
    if (event.payload === undefined) {
      throw new CrewdError(
        'VALIDATION_ERROR',
        'A trigger needs a JSON body: it becomes crewai_trigger_payload',
      );
    }
    return this.#deps.executions.kickoff({
      inputs: { ...trigger.inputs, [triggerPayloadInput]: event.payload },
      meta: {
        trigger: event.name,
        ...(event.webhookId === undefined ? {} : { webhook_id: event.webhookId }),
      },
      webhooks: noWebhooks,
      idempotencyKey: event.webhookId === undefined ? null : `trigger:${event.name}:${event.webhookId}`,
      caller,
    });
  }
}

/**
 * Who the execution belongs to: for a signed request the trigger itself (a signature that does not verify is
 * refused even beside a token), else the bearer token's caller.
 */
function callerOf(trigger: Trigger, event: TriggerEvent): Caller {
  if (event.webhookSignature === undefined) {
    if (event.caller === null) throw unauthorized();
    return event.caller;
  }
  try {
    new Webhook(trigger.secret).verify(event.rawBody, {
      'webhook-id': event.webhookId ?? '',
      'webhook-timestamp': event.webhookTimestamp ?? '',
      'webhook-signature': event.webhookSignature,
    });
  } catch {
    throw unauthorized();
  }
  return { tokenId: `trigger:${trigger.name}`, kind: 'org', userId: null };
}

/** A Standard Webhooks secret: `whsec_` and 24 random bytes in base64. */
export function newTriggerSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

function unauthorized(): CrewdError {
  return new CrewdError('UNAUTHORIZED', 'Invalid or missing bearer token');
}
