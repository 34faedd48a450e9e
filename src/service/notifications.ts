import type { AgentStep } from '../domain/events.ts';
import type { Execution, FlowReviewRequest, WebhookTargets } from '../domain/execution.ts';
import type { HumanFeedback, TaskOutput } from '../domain/task-output.ts';
import type { ExecutionChange, NewOutboxMessage, WebhookKind } from '../store/store.ts';
import type { BudgetReached } from '../domain/budget.ts';
import {
  budgetPauseFields,
  crewPayload,
  humanInputDeadlinePayload,
  humanInputHeaders,
  humanInputPayload,
  stepPayload,
  taskPayload,
} from '../webhooks/payloads.ts';
import { a2aPushMessages } from './a2a-push.ts';
import { toStreamEvents } from './stream-events.ts';

/**
 * Builds the webhook messages a change causes, for the targets registered on the current leg. They are written
 * in the same transaction as the change, so none is lost or sent for a change that did not happen.
 */
export class Notifications {
  constructor(
    private readonly newId: () => string,
    /** Named in the streamed crew events. */
    private readonly crewName = 'crew',
    /** What is served: a flow's executions stream crewAI's flow events. */
    private readonly kind: 'crew' | 'flow' = 'crew',
  ) {}

  /**
   * The event streaming messages for a change: crewAI's events for the records it logs, filtered by the target's
   * types; one message per event when the target is realtime, else one for all of them. With them, the A2A push
   * notifications of a change of state: every write of a change passes here.
   */
  streamed(
    execution: Execution,
    change: ExecutionChange,
    webhooks: WebhookTargets = execution.webhooks,
  ): NewOutboxMessage[] {
    return [
      ...this.#eventStream(execution, change, webhooks),
      ...a2aPushMessages(execution, change, webhooks.a2aPush ?? [], this.newId),
    ];
  }

  #eventStream(execution: Execution, change: ExecutionChange, webhooks: WebhookTargets): NewOutboxMessage[] {
    const target = webhooks.events ?? null;
    if (target === null) return [];
    const context = {
      crewName: this.crewName,
      kind: this.kind,
      inputs: execution.inputs,
      firstStart: change.patch?.startedAt !== undefined,
      totalTokens: (change.patch?.usage ?? execution.usage).totalTokens,
    };
    const sources = (change.events ?? []).map((record) => ({ record, at: change.now }));
    const events = sources.flatMap(({ record, at }) =>
      toStreamEvents(record, context)
        .filter((event) => target.types === null || target.types.includes(event.type))
        .map((event) => ({
          id: `evt_${this.newId()}`,
          execution_id: execution.id,
          timestamp: at.toISOString(),
          type: event.type,
          data: event.data,
        })),
    );
    if (events.length === 0) return [];
    const headers = humanInputHeaders(target.authentication);
    const batches = target.realtime ? events.map((event) => [event]) : [events];
    return batches.map((batch) => this.#message('events', target.url, { events: batch }, headers));
  }

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

  /** `review`: a flow method's message and outcomes, which the payload carries as well. */
  humanInputRequested(
    execution: Execution,
    output: TaskOutput,
    review?: FlowReviewRequest,
  ): NewOutboxMessage[] {
    const target = execution.webhooks.humanInput;
    if (target === null) return [];
    const request = humanInputRequest(execution, output);
    const payload =
      review === undefined
        ? request
        : {
            ...request,
            message: review.message,
            ...(review.emit === undefined ? {} : { emit: [...review.emit] }),
          };
    return [this.#message('human_input', target.url, payload, humanInputHeaders(target.authentication))];
  }

  /** Asks the human-input webhook to approve more budget: the request of a review, with the budget and the spend. */
  budgetReached(execution: Execution, output: TaskOutput, reached: BudgetReached): NewOutboxMessage[] {
    const target = execution.webhooks.humanInput;
    if (target === null) return [];
    const payload = { ...humanInputRequest(execution, output), ...budgetPauseFields(reached) };
    return [this.#message('human_input', target.url, payload, humanInputHeaders(target.authentication))];
  }

  /** Tells the human-input webhook that the review's deadline passed and what answered it. */
  humanInputDeadlinePassed(
    execution: Execution,
    output: TaskOutput,
    feedback: HumanFeedback,
  ): NewOutboxMessage[] {
    const target = execution.webhooks.humanInput;
    if (target === null) return [];
    const request = humanInputRequest(execution, output);
    return [
      this.#message(
        'human_input',
        target.url,
        humanInputDeadlinePayload(request, feedback),
        humanInputHeaders(target.authentication),
      ),
    ];
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

/** The human-input payload of a review: what asks for it, and what tells of its deadline. */
function humanInputRequest(execution: Execution, output: TaskOutput) {
  return humanInputPayload(execution.id, output, output.taskId, output.agent, output.attempt, execution.meta);
}
