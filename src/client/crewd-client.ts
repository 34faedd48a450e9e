import { setTimeout as delay } from 'node:timers/promises';
import type {
  CrewDescription,
  DeliveryList,
  ExecutionEvent,
  ExecutionList,
  ExecutionDetail,
  ExecutionStatus,
  KickoffRequest,
  KickoffResponse,
  ListQuery,
  ResumeRequest,
  ResumeResponse,
  ScheduleRequest,
  ScheduleView,
} from './client-types.ts';
import { CrewdClientError, errorFromAnswer } from './crewd-client-error.ts';
import { readExecutionEvents } from './read-execution-events.ts';

export interface CrewdClientOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:8000`. */
  readonly url: string;
  /** A bearer token from `crewd tokens create` (or the one `crewd serve` prints). */
  readonly token?: string | undefined;
  /** Another fetch implementation; the global one unless given. */
  readonly fetch?: typeof fetch;
}

export interface EventsOptions {
  /** Continue after this event id (the `Last-Event-ID` of a stream read before); from the start unless given. */
  readonly lastEventId?: number;
  readonly signal?: AbortSignal;
  /** Wait before reconnecting a dropped stream; 1000 ms unless given. */
  readonly retryMs?: number;
  /** Reconnections in a row without an event before giving up; 10 unless given. */
  readonly maxRetries?: number;
}

export interface WaitOptions {
  readonly signal?: AbortSignal;
  /** Called with every event while waiting (progress output). */
  readonly onEvent?: (event: ExecutionEvent) => void;
  /** Passed to the event stream the wait follows. */
  readonly retryMs?: number;
}

/** A typed client of a crewd server. Every method rejects with `CrewdClientError`. */
export interface CrewdClient {
  /** The inputs the crew expects (`GET /inputs`). */
  inputs(): Promise<string[]>;
  /**
   * The crew (`GET /crew`): agents, tasks and inputs; `input_fields` says which inputs a kickoff must give, their
   * types and defaults.
   */
  crew(): Promise<CrewDescription>;
  /** Starts an execution; `idempotencyKey` makes a retried kickoff return the same execution. */
  kickoff(body: KickoffRequest, options?: { readonly idempotencyKey?: string }): Promise<KickoffResponse>;
  status(kickoffId: string): Promise<ExecutionStatus>;
  /** One execution in full (`GET /executions/{id}`), with the webhooks its current leg notifies. */
  execution(kickoffId: string): Promise<ExecutionDetail>;
  /**
   * Resolves with the status once the execution is no longer PENDING or RUNNING: finished, or paused for human
   * input. Follows the event stream rather than polling.
   */
  wait(kickoffId: string, options?: WaitOptions): Promise<ExecutionStatus>;
  resume(body: ResumeRequest): Promise<ResumeResponse>;
  /** Cancels an execution (it becomes REVOKED); a finished one stays as it is. */
  cancel(kickoffId: string): Promise<ExecutionStatus>;
  /** One page of executions, newest first; pass `next_cursor` back as `cursor` for the next. */
  list(query?: ListQuery): Promise<ExecutionList>;
  deliveries(kickoffId: string): Promise<DeliveryList>;
  /**
   * The execution's events, live until it finishes. A dropped connection is reopened with `Last-Event-ID`, so no
   * event is missed or repeated; the iteration ends after the `execution-end` event.
   */
  events(kickoffId: string, options?: EventsOptions): AsyncIterable<ExecutionEvent>;
  /** The crew's schedules (`/schedules`): user tokens see and change only their own. */
  readonly schedules: {
    create(body: ScheduleRequest): Promise<ScheduleView>;
    list(): Promise<ScheduleView[]>;
    get(scheduleId: string): Promise<ScheduleView>;
    pause(scheduleId: string): Promise<ScheduleView>;
    resume(scheduleId: string): Promise<ScheduleView>;
    /** Starts one of the schedule's executions now. */
    run(scheduleId: string): Promise<KickoffResponse>;
    delete(scheduleId: string): Promise<void>;
  };
}

const settledStates: readonly string[] = ['PAUSED', 'SUCCESS', 'FAILED', 'REVOKED'];
const finishedStates: readonly string[] = ['SUCCESS', 'FAILED', 'REVOKED'];

export function createCrewdClient(options: CrewdClientOptions): CrewdClient {
  const base = options.url.endsWith('/') ? options.url : `${options.url}/`;
  const doFetch = options.fetch ?? fetch;

  async function send(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal | undefined } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
    if (options.token !== undefined && options.token !== '')
      headers.authorization = `Bearer ${options.token}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await doFetch(new URL(path, base), {
        method,
        headers,
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        ...(init.signal === undefined ? {} : { signal: init.signal }),
      });
    } catch (error) {
      if (init.signal?.aborted === true) throw error;
      throw new CrewdClientError(`Cannot reach crewd at ${options.url}`, {
        code: 'UNREACHABLE',
        status: null,
        cause: error,
      });
    }
    if (!response.ok) throw errorFromAnswer(response.status, parseJson(await response.text()));
    return response;
  }

  async function json<T>(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ) {
    const response = await send(method, path, { body, ...(headers === undefined ? {} : { headers }) });
    return (await response.json()) as T;
  }

  const id = (value: string): string => encodeURIComponent(value);

  async function* events(
    kickoffId: string,
    eventOptions: EventsOptions = {},
  ): AsyncGenerator<ExecutionEvent> {
    const { signal } = eventOptions;
    const retryMs = eventOptions.retryMs ?? 1000;
    const maxRetries = eventOptions.maxRetries ?? 10;
    let last = eventOptions.lastEventId ?? 0;
    let failures = 0;
    for (;;) {
      try {
        const response = await send('GET', `executions/${id(kickoffId)}/events`, {
          headers: { accept: 'text/event-stream', ...(last > 0 ? { 'last-event-id': String(last) } : {}) },
          signal,
        });
        if (response.body === null) throw new CrewdClientError('The event stream had no body', unreachable);
        let received = 0;
        for await (const event of readExecutionEvents(response.body)) {
          failures = 0;
          received += 1;
          last = event.id;
          yield event;
          if (event.type === 'execution-end') return;
        }
        // Closed without the end event: the server stopped (reconnect), or the stream was resumed after its end,
        // which sends nothing for a finished execution (done).
        if (received === 0) {
          const { state } = await json<ExecutionStatus>('GET', `status/${id(kickoffId)}`);
          if (finishedStates.includes(state)) return;
        }
      } catch (error) {
        if (signal?.aborted === true) throw error;
        // Error answers other than a busy or unreachable server will not change by trying again.
        if (error instanceof CrewdClientError && !error.retryable) throw error;
      }
      failures += 1;
      if (failures > maxRetries) {
        throw new CrewdClientError(`The event stream of ${kickoffId} could not be reopened`, unreachable);
      }
      await delay(retryMs, undefined, signal === undefined ? {} : { signal });
    }
  }

  return {
    async inputs() {
      return (await json<{ inputs: string[] }>('GET', 'inputs')).inputs;
    },
    crew() {
      return json<CrewDescription>('GET', 'crew');
    },
    kickoff(body, kickoffOptions = {}) {
      const key = kickoffOptions.idempotencyKey;
      return json<KickoffResponse>(
        'POST',
        'kickoff',
        body,
        key === undefined ? undefined : { 'idempotency-key': key },
      );
    },
    status: (kickoffId) => json<ExecutionStatus>('GET', `status/${id(kickoffId)}`),
    execution: (kickoffId) => json<ExecutionDetail>('GET', `executions/${id(kickoffId)}`),
    async wait(kickoffId, waitOptions = {}) {
      let status = await json<ExecutionStatus>('GET', `status/${id(kickoffId)}`);
      if (settledStates.includes(status.state)) return status;
      const stream = events(kickoffId, {
        ...(waitOptions.signal === undefined ? {} : { signal: waitOptions.signal }),
        ...(waitOptions.retryMs === undefined ? {} : { retryMs: waitOptions.retryMs }),
      });
      for await (const event of stream) {
        waitOptions.onEvent?.(event);
        // The log is replayed from its start, so an old pause is checked against the status, which is current.
        if (event.type !== 'human-input-request' && event.type !== 'execution-end') continue;
        status = await json<ExecutionStatus>('GET', `status/${id(kickoffId)}`);
        if (settledStates.includes(status.state)) return status;
      }
      return json<ExecutionStatus>('GET', `status/${id(kickoffId)}`);
    },
    resume: (body) => json<ResumeResponse>('POST', 'resume', body),
    schedules: {
      create: (body) => json<ScheduleView>('POST', 'schedules', body),
      list: async () => (await json<{ schedules: ScheduleView[] }>('GET', 'schedules')).schedules,
      get: (scheduleId) => json<ScheduleView>('GET', `schedules/${id(scheduleId)}`),
      pause: (scheduleId) => json<ScheduleView>('POST', `schedules/${id(scheduleId)}/pause`, {}),
      resume: (scheduleId) => json<ScheduleView>('POST', `schedules/${id(scheduleId)}/resume`, {}),
      run: (scheduleId) => json<KickoffResponse>('POST', `schedules/${id(scheduleId)}/run`, {}),
      async delete(scheduleId) {
        await send('DELETE', `schedules/${id(scheduleId)}`);
      },
    },
    cancel: (kickoffId) => json<ExecutionStatus>('POST', `cancel/${id(kickoffId)}`, {}),
    list(query = {}) {
      const search = new URLSearchParams();
      if (query.state !== undefined) search.set('state', query.state);
      if (query.limit !== undefined) search.set('limit', String(query.limit));
      if (query.cursor !== undefined) search.set('cursor', query.cursor);
      const suffix = search.size === 0 ? '' : `?${search.toString()}`;
      return json<ExecutionList>('GET', `executions${suffix}`);
    },
    deliveries: (kickoffId) => json<DeliveryList>('GET', `executions/${id(kickoffId)}/deliveries`),
    events,
  };
}

const unreachable = { code: 'UNREACHABLE', status: null } as const;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
