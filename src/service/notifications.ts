import type { AgentStep } from '../domain/events.ts';
import type { Execution, WebhookTargets } from '../domain/execution.ts';
import type { TaskOutput } from '../domain/task-output.ts';
import type { NewOutboxMessage, WebhookKind } from '../store/store.ts';
import {
  crewPayload,
  humanInputHeaders,
  humanInputPayload,
  stepPayload,
  taskPayload,
} from '../webhooks/payloads.ts';

/**
 * Builds the webhook messages a change causes, for the targets registered on the current leg. They are written
 * in the same transaction as the change, so none is lost or sent for a change that did not happen.
 */
export class Notifications {
  constructor(private readonly newId: () => string) {}

  taskEnded(execution: Execution, output: TaskOutput, taskName: string): NewOutboxMessage[] {
    return this.#to(
      'task',
      execution.webhooks.taskUrl,
      taskPayload(execution.id, output, taskName, execution.meta),
    );
  }

  stepEnded(execution: Execution, step: AgentStep): NewOutboxMessage[] {
    return this.#to('step', execution.webhooks.stepUrl, stepPayload(execution.id, step, execution.meta));
  }

  /** Sent on every ending: success, failure and cancellation. */
  crewEnded(execution: Execution, webhooks: WebhookTargets = execution.webhooks): NewOutboxMessage[] {
    return this.#to(
      'crew',
      webhooks.crewUrl,
      crewPayload({
        kickoffId: execution.id,
        state: execution.state,
        result: execution.result,
        resultJson: execution.resultJson,
        error: execution.error,
        usage: execution.usage,
        meta: execution.meta,
      }),
    );
  }

  humanInputRequested(execution: Execution, output: TaskOutput): NewOutboxMessage[] {
    const target = execution.webhooks.humanInput;
    if (target === null) return [];
    const payload = humanInputPayload(
      execution.id,
      output,
      output.taskId,
      output.agent,
      output.attempt,
      execution.meta,
    );
    return [this.#message('human_input', target.url, payload, humanInputHeaders(target.authentication))];
  }

  #to(kind: WebhookKind, url: string | null, payload: Record<string, unknown>): NewOutboxMessage[] {
    return url === null ? [] : [this.#message(kind, url, payload, {})];
  }

  #message(
    kind: WebhookKind,
    url: string,
    payload: Record<string, unknown>,
    headers: Record<string, string>,
  ): NewOutboxMessage {
    return { id: `msg_${this.newId()}`, kind, url, payload, headers };
  }
}
