import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import {
  ExtendedAgentCardNotConfiguredError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { isCrewdError, MissingInputsError } from '../domain/errors.ts';
import type { ErrorCode } from '../domain/errors.ts';
import { isFinished, noWebhooks } from '../domain/execution.ts';
import type { A2aPushTarget, Execution } from '../domain/execution.ts';
import {
  a2aStateOf,
  a2aTaskOf,
  agentMessage,
  executionStateOf,
  resultArtifact,
  textPart,
} from '../service/a2a-task.ts';
import type { Caller, ExecutionService } from '../service/execution-service.ts';
import { waitUntilSettled } from '../service/wait-until-settled.ts';
import type { StoredExecutionEvent } from '../store/store.ts';
import { validateHeaderSafe } from '../webhooks/index.ts';
import { inputsOf, reviewAnswerOf } from './a2a-message-parts.ts';
import { isHttpUrl, maxWebhookUrlLength } from './webhook-fields.ts';

export interface A2aHandlerDeps {
  readonly service: ExecutionService;
  readonly card: AgentCard;
  readonly caller: Caller;
  /** Aborts when the client goes away: waits and streams for it stop. */
  readonly signal: AbortSignal;
}

/** The event log entries after which a send stops waiting: the task needs input, or it is over. */
const settlingEvents = new Set<StoredExecutionEvent['type']>(['human-input-request', 'execution-end']);

/** ListTasks pages: the protocol's default and largest page sizes. */
const listPageSizes = { default: 50, max: 100 } as const;

/** A push config id when the client gives none, so `get` without an id finds it. */
const defaultConfigId = 'default';

/**
 * The A2A request handler over the execution service: each A2A task is an execution (task id = kickoff id), so it
 * is durable, listed, streamed and reviewed like any other, whichever front end started or answers it. The SDK's
 * JSON-RPC transport handlers (1.0 and 0.3) parse requests and shape answers; this class does what they ask.
 * One instance serves one request, for one caller.
 */
export class CrewA2aHandler implements A2ARequestHandler {
  constructor(private readonly deps: A2aHandlerDeps) {}

  getAgentCard(): Promise<AgentCard> {
    return Promise.resolve(this.deps.card);
  }

  getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    return Promise.reject(new ExtendedAgentCardNotConfiguredError());
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    return translated(async () => {
      const { executionId } = await this.#start(params, context);
      if (params.configuration?.returnImmediately === true) return a2aTaskOf(await this.#get(executionId));
      const { service, caller, signal } = this.deps;
      return a2aTaskOf(await waitUntilSettled(service, executionId, caller, { signal }));
    });
  }

  async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const { executionId, after } = await translated(() => this.#start(params, context));
    yield* this.#follow(executionId, after);
  }

  async getTask(params: GetTaskRequest): Promise<Task> {
    return translated(async () => a2aTaskOf(await this.#get(params.id)));
  }

  async cancelTask(params: CancelTaskRequest): Promise<Task> {
    return translated(async () => {
      const execution = await this.#get(params.id);
      if (isFinished(execution.state))
        throw new TaskNotCancelableError(`Task ${params.id} has already ended`);
      return a2aTaskOf(await this.deps.service.cancel(params.id, this.deps.caller));
    });
  }

  async *resubscribe(params: SubscribeToTaskRequest): AsyncGenerator<StreamResponse, void, undefined> {
    const execution = await translated(() => this.#get(params.id));
    yield* this.#follow(execution.id, execution.lastEventSequence);
  }

  /**
   * Protocol 1.0's ListTasks: the caller's tasks (a user token's own executions), newest first, a page at a time as
   * GET /executions pages. A task's context is the task itself, so a `contextId` filter finds that one task.
   */
  async listTasks(params: ListTasksRequest): Promise<ListTasksResponse> {
    return translated(async () => {
      const pageSize = params.pageSize ?? listPageSizes.default;
      if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > listPageSizes.max) {
        throw new RequestMalformedError(`pageSize must be from 1 to ${listPageSizes.max}`);
      }
      if (params.statusTimestampAfter !== undefined && params.statusTimestampAfter !== '') {
        throw new UnsupportedOperationError('statusTimestampAfter is not supported: filter by status');
      }
      const wanted = params.status === TaskState.TASK_STATE_UNSPECIFIED ? undefined : params.status;
      const state = wanted === undefined ? undefined : executionStateOf(wanted);
      const page = (tasks: readonly Execution[], nextPageToken: string): ListTasksResponse => ({
        tasks: tasks.map(a2aTaskOf),
        nextPageToken,
        pageSize,
        // Counting every task the caller may see would cost a scan: the total is what is known, this page and,
        // when one follows, at least one more.
        totalSize: tasks.length + (nextPageToken === '' ? 0 : 1),
      });
      // No execution is ever rejected or waits for authentication.
      if (state === null) return page([], '');
      const { service, caller } = this.deps;
      if (params.contextId !== '') {
        const execution = await service.get(params.contextId, caller).catch((error: unknown) => {
          if (isCrewdError(error) && error.code === 'NOT_FOUND') return null;
          throw error;
        });
        const matches = execution !== null && (state === undefined || execution.state === state);
        return page(matches ? [execution] : [], '');
      }
      const found = await service.list({
        limit: pageSize,
        caller,
        ...(state === undefined ? {} : { state }),
        ...(params.pageToken === '' ? {} : { cursor: params.pageToken }),
      });
      return page(found.items, found.nextCursor ?? '');
    });
  }

  async createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return translated(async () => {
      const target = pushTarget(params, context);
      await this.deps.service.replaceA2aPush(params.taskId, this.deps.caller, (current) => [
        ...current.filter((existing) => existing.id !== target.id),
        target,
      ]);
      return pushConfigView(params.taskId, target);
    });
  }

  async getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
  ): Promise<TaskPushNotificationConfig> {
    return translated(async () => {
      const targets = (await this.#get(params.taskId)).webhooks.a2aPush ?? [];
      const target = params.id === '' ? targets[0] : targets.find((existing) => existing.id === params.id);
      if (target === undefined) throw new TaskNotFoundError(`Task ${params.taskId} has no such push config`);
      return pushConfigView(params.taskId, target);
    });
  }

  async listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return translated(async () => {
      const targets = (await this.#get(params.taskId)).webhooks.a2aPush ?? [];
      return { configs: targets.map((target) => pushConfigView(params.taskId, target)), nextPageToken: '' };
    });
  }

  async deleteTaskPushNotificationConfig(params: DeleteTaskPushNotificationConfigRequest): Promise<void> {
    await translated(() =>
      this.deps.service.replaceA2aPush(params.taskId, this.deps.caller, (current) =>
        current.filter((existing) => existing.id !== params.id),
      ),
    );
  }

  /** Kicks off a new execution, or answers the review a paused one waits for; returns where its log goes on. */
  async #start(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<{ executionId: string; after: number }> {
    const { message } = params;
    if (message === undefined) throw new RequestMalformedError('message is required');
    const config = params.configuration?.taskPushNotificationConfig;
    const push = config === undefined ? [] : [pushTarget(config, context)];
    const { service, caller } = this.deps;
    if (message.taskId !== '') {
      const execution = await this.#get(message.taskId);
      const pending = execution.pending;
      if (execution.state !== 'PAUSED' || pending === null) {
        throw new UnsupportedOperationError(
          `Task ${message.taskId} is not waiting for input; a new message without taskId starts a new task`,
        );
      }
      const answer = reviewAnswerOf(message);
      await service.resume({
        executionId: execution.id,
        taskId: pending.taskId,
        feedback: answer.feedback,
        approve: answer.approve,
        taskUrl: null,
        stepUrl: null,
        crewUrl: null,
        humanInput: null,
        events: null,
        a2aPush: push,
        caller,
      });
      return { executionId: execution.id, after: execution.lastEventSequence };
    }
    const { kickoffId } = await service.kickoff({
      inputs: inputsOf(message, service.crew.requiredInputs),
      meta: null,
      webhooks: push.length === 0 ? noWebhooks : { ...noWebhooks, a2aPush: push },
      idempotencyKey: null,
      caller,
    });
    return { executionId: kickoffId, after: 0 };
  }

  #get(executionId: string): Promise<Execution> {
    return this.deps.service.get(executionId, this.deps.caller);
  }

  /** The execution's log after `after`, until it ends, the client leaves or the reader stops. */
  async *#events(executionId: string, after: number): AsyncGenerator<StoredExecutionEvent, void, undefined> {
    const stop = new AbortController();
    const signal = AbortSignal.any([stop.signal, this.deps.signal]);
    try {
      yield* await this.deps.service.openEventStream(executionId, this.deps.caller, after, signal);
    } catch (error) {
      throw toA2aError(error);
    } finally {
      stop.abort();
    }
  }

  /**
   * The task, then its changes as A2A events until it needs input or ends: `working` when it starts and after each
   * task, `input-required` with the review, the result artifact, and the final state.
   */
  async *#follow(executionId: string, after: number): AsyncGenerator<StreamResponse, void, undefined> {
    const first = await translated(() => this.#get(executionId));
    yield { payload: { $case: 'task', value: a2aTaskOf(first) } };
    if (first.state === 'PAUSED' || isFinished(first.state)) return;
    for await (const event of this.#events(executionId, after)) {
      if (event.type === 'execution-start') yield statusUpdate(executionId, 'RUNNING', undefined);
      if (event.type === 'task-end') {
        const text = `Task '${event.data.task_id}' finished`;
        const message = agentMessage(`${executionId}-${event.sequence}`, executionId, [textPart(text)]);
        yield statusUpdate(executionId, 'RUNNING', message);
      }
      if (!settlingEvents.has(event.type)) continue;
      const execution = await translated(() => this.#get(executionId));
      const artifact = resultArtifact(execution);
      if (artifact !== undefined) {
        yield {
          payload: {
            $case: 'artifactUpdate',
            value: {
              taskId: executionId,
              contextId: executionId,
              artifact,
              append: false,
              lastChunk: true,
              metadata: undefined,
            },
          },
        };
      }
      yield statusUpdate(executionId, execution.state, a2aTaskOf(execution).status?.message);
      return;
    }
  }
}

function statusUpdate(
  executionId: string,
  state: Execution['state'],
  message: Message | undefined,
): StreamResponse {
  return {
    payload: {
      $case: 'statusUpdate',
      value: {
        taskId: executionId,
        contextId: executionId,
        status: { state: a2aStateOf(state), message, timestamp: new Date().toISOString() },
        metadata: undefined,
      },
    },
  };
}

/** A push config as crewd keeps it, checked as every webhook target is. */
function pushTarget(config: TaskPushNotificationConfig, context: ServerCallContext): A2aPushTarget {
  if (config.url.length > maxWebhookUrlLength || !isHttpUrl(config.url)) {
    throw new RequestMalformedError('The push notification url must be an absolute http(s) URL');
  }
  const token = config.token === '' ? null : config.token;
  const auth = config.authentication;
  const authentication =
    auth === undefined || auth.credentials === ''
      ? null
      : { scheme: auth.scheme || 'Bearer', credentials: auth.credentials };
  try {
    if (token !== null) validateHeaderSafe('token', token, { ascii: true });
    if (authentication !== null) {
      validateHeaderSafe('authentication.scheme', authentication.scheme, { ascii: true });
      validateHeaderSafe('authentication.credentials', authentication.credentials, { ascii: true });
    }
  } catch (error) {
    throw new RequestMalformedError(
      error instanceof Error ? error.message : 'Invalid push notification config',
    );
  }
  return {
    id: config.id === '' ? defaultConfigId : config.id,
    url: config.url,
    token,
    authentication,
    protocol: context.requestedVersion.startsWith('0.') ? '0.3' : '1.0',
  };
}

/** A push config as a client reads it back: the credentials it sent are not repeated. */
function pushConfigView(taskId: string, target: A2aPushTarget): TaskPushNotificationConfig {
  return {
    tenant: '',
    id: target.id,
    taskId,
    url: target.url,
    token: target.token ?? '',
    authentication:
      target.authentication === null ? undefined : { scheme: target.authentication.scheme, credentials: '' },
  };
}

/**
 * Runs `work`, turning crewd's errors into A2A ones: unknown and other users' executions are an unknown task,
 * missing inputs are invalid params naming them, and anything else says no more than the HTTP API would.
 */
async function translated<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toA2aError(error);
  }
}

/** crewd's codes for a request the client got wrong. */
const clientErrorCodes = new Set<ErrorCode>([
  'VALIDATION_ERROR',
  'INVALID_JSON',
  'MISSING_INPUTS',
  'IDEMPOTENCY_CONFLICT',
  'PAYLOAD_TOO_LARGE',
]);

function toA2aError(error: unknown): unknown {
  if (error instanceof MissingInputsError) {
    return new RequestMalformedError(`Missing required inputs: ${error.missingInputs.join(', ')}`);
  }
  if (!isCrewdError(error)) {
    // Errors the SDK knows (a brand of its own) already carry a message meant for the client.
    if (error instanceof Error && 'toErrorInfo' in error) return error;
    return new Error('Internal error');
  }
  if (error.code === 'NOT_FOUND') return new TaskNotFoundError(error.message);
  if (error.code === 'NOT_PENDING_HUMAN_INPUT') return new UnsupportedOperationError(error.message);
  if (clientErrorCodes.has(error.code)) return new RequestMalformedError(error.message);
  if (error.retryable || error.code === 'DEPENDENCY_UNAVAILABLE' || error.code === 'RATE_LIMITED') {
    return new Error('Service unavailable; try again shortly');
  }
  return new Error('Internal error');
}
