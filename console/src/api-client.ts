import type {
  CrewDescription,
  Delivery,
  ExecutionDetail,
  ExecutionPage,
  ExecutionState,
  ScheduleView,
  ServedCrewList,
  StatusView,
} from './api-types.ts';

/** An error answer in the API's shape: `{error, message, code, details?}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface KickoffForm {
  readonly inputs: Record<string, string>;
  readonly meta: Record<string, unknown> | null;
  readonly webhooks: Partial<Record<'taskWebhookUrl' | 'stepWebhookUrl' | 'crewWebhookUrl', string>>;
}

/**
 * The API as the console uses it; the token only ever travels in the Authorization header. Executions are read
 * and answered at the server's root, which answers for every crew; a crew's own calls (its description, kickoff,
 * schedules) go to its base URL, through `forCrew`.
 */
export class ApiClient {
  constructor(
    private readonly token: string,
    private readonly base = '',
  ) {}

  /** The same client, its crew calls sent to that crew's base URL (`/crews/<name>`). */
  forCrew(name: string): ApiClient {
    return new ApiClient(this.token, `/crews/${encodeURIComponent(name)}`);
  }

  /** The crews the server serves that the token reaches. */
  crews(): Promise<ServedCrewList> {
    return this.call('/crews');
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { authorization: `Bearer ${this.token}`, ...extra };
  }

  private async call<T>(path: string, init: RequestInit = {}): Promise<T> {
    let response: Response;
    try {
      response = await fetch(path, {
        ...init,
        headers: this.headers(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        cache: 'no-store',
      });
    } catch {
      throw new ApiError(0, 'NETWORK', 'The server could not be reached');
    }
    const text = await response.text();
    const body: unknown = text === '' ? null : JSON.parse(text);
    if (!response.ok) {
      const error = (body ?? {}) as { code?: string; message?: string };
      throw new ApiError(response.status, error.code ?? 'HTTP', error.message ?? `HTTP ${response.status}`);
    }
    return body as T;
  }

  crew(): Promise<CrewDescription> {
    return this.call(`${this.base}/crew`);
  }

  list(options: { state?: ExecutionState; cursor?: string; limit?: number }): Promise<ExecutionPage> {
    const query = new URLSearchParams({ limit: String(options.limit ?? 20) });
    if (options.state !== undefined) query.set('state', options.state);
    if (options.cursor !== undefined) query.set('cursor', options.cursor);
    return this.call(`/executions?${query.toString()}`);
  }

  detail(id: string): Promise<ExecutionDetail> {
    return this.call(`/executions/${encodeURIComponent(id)}`);
  }

  deliveries(id: string): Promise<{ items: Delivery[] }> {
    return this.call(`/executions/${encodeURIComponent(id)}/deliveries`);
  }

  kickoff(form: KickoffForm): Promise<{ kickoff_id: string }> {
    return this.call(`${this.base}/kickoff`, {
      method: 'POST',
      body: JSON.stringify({ inputs: form.inputs, meta: form.meta, ...form.webhooks }),
    });
  }

  resume(id: string, taskId: string, feedback: string, approve: boolean): Promise<{ status: string }> {
    return this.call('/resume', {
      method: 'POST',
      body: JSON.stringify({
        execution_id: id,
        task_id: taskId,
        human_feedback: feedback,
        is_approve: approve,
      }),
    });
  }

  /** A saved output file's content, fetched with the Authorization header so the token stays out of the URL. */
  async download(url: string): Promise<Blob> {
    let response: Response;
    try {
      response = await fetch(url, { headers: this.headers(), cache: 'no-store' });
    } catch {
      throw new ApiError(0, 'NETWORK', 'The server could not be reached');
    }
    if (!response.ok)
      throw new ApiError(
        response.status,
        'HTTP',
        `The file could not be downloaded (HTTP ${response.status})`,
      );
    return response.blob();
  }

  schedules(): Promise<{ schedules: ScheduleView[] }> {
    return this.call(`${this.base}/schedules`);
  }

  createSchedule(form: {
    cron: string;
    timezone: string;
    name: string;
    inputs: Record<string, string>;
  }): Promise<ScheduleView> {
    return this.call(`${this.base}/schedules`, {
      method: 'POST',
      body: JSON.stringify({ ...form, name: form.name === '' ? null : form.name }),
    });
  }

  /** Pauses, resumes or runs a schedule now. */
  scheduleAction(id: string, action: 'pause' | 'resume' | 'run'): Promise<unknown> {
    return this.call(`${this.base}/schedules/${encodeURIComponent(id)}/${action}`, { method: 'POST' });
  }

  deleteSchedule(id: string): Promise<unknown> {
    return this.call(`${this.base}/schedules/${encodeURIComponent(id)}`, { method: 'DELETE' });
  }

  cancel(id: string): Promise<StatusView> {
    return this.call(`/cancel/${encodeURIComponent(id)}`, { method: 'POST' });
  }
}
