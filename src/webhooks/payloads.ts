import { CrewdError } from '../domain/errors.ts';
import type { AgentStep } from '../domain/events.ts';
import type { ExecutionState, WebhookAuthentication } from '../domain/execution.ts';
import type { TaskOutput } from '../domain/task-output.ts';
import type { BudgetReached } from '../domain/budget.ts';
import type {
  BudgetPauseFields,
  CrewPayload,
  HumanInputDeadlinePayload,
  HumanInputPayload,
  StepPayload,
  TaskPayload,
} from '../domain/webhook-payloads.ts';
import type { TokenUsage } from '../domain/usage.ts';

type Meta = Readonly<Record<string, unknown>> | null;

export function taskPayload(kickoffId: string, output: TaskOutput, name: string, meta: Meta): TaskPayload {
  return {
    kickoff_id: kickoffId,
    task_id: output.taskId,
    name,
    description: output.description,
    expected_output: output.expectedOutput,
    summary: output.summary,
    agent: output.agent,
    output: output.output,
    output_json: output.outputJson,
    meta,
  };
}

export function stepPayload(kickoffId: string, step: AgentStep, meta: Meta): StepPayload {
  return {
    kickoff_id: kickoffId,
    task_id: step.taskId,
    agent: step.agent,
    prompt: step.prompt,
    thought: step.thought,
    tool: step.tool,
    tool_input: step.toolInput ?? null,
    result: step.result,
    meta,
  };
}

/** The fields of an ended execution the crew payload is made of. */
export interface CrewPayloadFields {
  readonly kickoffId: string;
  readonly state: ExecutionState;
  readonly result: string | null;
  readonly resultJson: Record<string, unknown> | null;
  readonly error: string | null;
  readonly usage: TokenUsage;
  readonly meta: Meta;
}

export function crewPayload(fields: CrewPayloadFields): CrewPayload {
  return {
    kickoff_id: fields.kickoffId,
    state: fields.state,
    result: fields.result,
    result_json: fields.resultJson,
    error: fields.error,
    token_usage: {
      total_tokens: fields.usage.totalTokens,
      prompt_tokens: fields.usage.promptTokens,
      completion_tokens: fields.usage.completionTokens,
    },
    meta: fields.meta,
  };
}

/** `execution_id` repeats the kickoff id: the seed's resume request names the execution that way. */
export function humanInputPayload(
  kickoffId: string,
  output: TaskOutput,
  taskName: string,
  agent: string,
  attempt: number,
  meta: Meta,
): HumanInputPayload {
  return {
    event: 'human_input_requested',
    execution_id: kickoffId,
    kickoff_id: kickoffId,
    task_id: output.taskId,
    task_name: taskName,
    agent,
    output: output.output,
    attempt,
    meta,
  };
}

/** The human-input payload of a review its deadline answered, with that answer. */
export function humanInputDeadlinePayload(
  request: HumanInputPayload,
  feedback: { readonly approved: boolean; readonly text: string },
): HumanInputDeadlinePayload {
  return {
    ...request,
    event: 'human_input_deadline_passed',
    is_approve: feedback.approved,
    human_feedback: feedback.text,
  };
}

/** C0 and C1 control characters and DEL: CR/LF would split the header, the rest have no place in a credential. */
function hasControlCharacter(value: string): boolean {
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

// A bearer token goes into the header verbatim, so it must be plain printable ASCII.
const headerText = /^[\x20-\x7e]*$/;

/**
 * Throws `VALIDATION_ERROR` when a credential could not be sent safely in a header. The message names the field,
 * never the value: credentials are secrets.
 */
export function validateHeaderSafe(
  field: string,
  value: string,
  options: { readonly ascii?: boolean; readonly allowEmpty?: boolean } = {},
): void {
  if (value.length === 0 && options.allowEmpty !== true) throw unsafe(field, 'must not be empty');
  if (hasControlCharacter(value)) throw unsafe(field, 'must not contain control characters');
  if (options.ascii === true && !headerText.test(value)) throw unsafe(field, 'must be printable ASCII');
}

/** Shaped like every other validation error: the message, and the field in `details.fields`. */
function unsafe(field: string, problem: string): CrewdError {
  const message = `${field} ${problem}`;
  return new CrewdError('VALIDATION_ERROR', message, { details: { fields: [{ field, message }] } });
}

/**
 * Checks a webhook's credentials; the HTTP layer calls it on /kickoff and /resume. `field` names the
 * authentication object in messages.
 */
export function assertCredentialsSafe(
  auth: WebhookAuthentication,
  field = 'humanInputWebhook.authentication',
): void {
  switch (auth.strategy) {
    case 'bearer':
      validateHeaderSafe(`${field}.token`, auth.token, { ascii: true });
      return;
    case 'basic':
      validateHeaderSafe(`${field}.username`, auth.username);
      validateHeaderSafe(`${field}.password`, auth.password, { allowEmpty: true });
      return;
  }
}

/** The `Authorization` header a webhook's authentication asks for; empty without authentication. */
export function humanInputHeaders(auth?: WebhookAuthentication): Record<string, string> {
  if (auth === undefined) return {};
  assertCredentialsSafe(auth);
  switch (auth.strategy) {
    case 'bearer':
      return { authorization: `Bearer ${auth.token}` };
    case 'basic':
      return {
        authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`, 'utf8').toString('base64')}`,
      };
  }
}

/** A budget pause's fields, added to its human-input request and to `pending_human_input`. */
export function budgetPauseFields(reached: BudgetReached): BudgetPauseFields {
  const { limit, spent } = reached;
  return {
    kind: 'budget',
    scope: reached.scope,
    budget: {
      ...(limit.tokens === undefined ? {} : { tokens: limit.tokens }),
      ...(limit.costUsd === undefined ? {} : { cost_usd: limit.costUsd }),
    },
    spent: { tokens: spent.tokens, cost_usd: spent.costUsd, unpriced_requests: spent.unpricedRequests },
  };
}
