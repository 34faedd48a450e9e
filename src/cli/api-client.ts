import { CrewdError } from '../domain/errors.ts';
import type { ErrorCode } from '../domain/errors.ts';

export interface ApiClientOptions {
  /** The server's base URL, e.g. http://127.0.0.1:8000. */
  readonly url: string;
  readonly token: string | undefined;
}

export interface ApiClient {
  get(path: string): Promise<unknown>;
  post(path: string, body: unknown): Promise<unknown>;
}

/** The error codes an HTTP status stands for, when the body names none the client knows. */
const codeByStatus: Record<number, ErrorCode> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  404: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  422: 'VALIDATION_ERROR',
  429: 'RATE_LIMITED',
  503: 'DEPENDENCY_UNAVAILABLE',
};

/** A small JSON client for a running crewd server; an error answer becomes a CrewdError with the server's message. */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const base = options.url.endsWith('/') ? options.url : `${options.url}/`;

  async function send(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.token !== undefined && options.token !== '')
      headers.authorization = `Bearer ${options.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(new URL(path.replace(/^\//, ''), base), {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new CrewdError(
        'DEPENDENCY_UNAVAILABLE',
        `Cannot reach crewd at ${options.url}; is the server running?`,
        {
          cause: error,
        },
      );
    }
    const text = await response.text();
    const parsed = parseJson(text);
    if (!response.ok) throw errorFrom(response.status, parsed);
    return parsed ?? text;
  }

  return { get: (path) => send('GET', path), post: (path, body) => send('POST', path, body) };
}

function errorFrom(status: number, body: unknown): CrewdError {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const message = typeof fields.message === 'string' ? fields.message : `The server answered HTTP ${status}`;
  const missing = (fields.details as { missing_inputs?: unknown } | undefined)?.missing_inputs;
  const detail = Array.isArray(missing) ? `: ${missing.join(', ')}` : '';
  const hint = status === 401 ? ' (pass --token or set CREWD_TOKEN)' : '';
  return new CrewdError(codeByStatus[status] ?? 'INTERNAL', `${message}${detail}${hint} (HTTP ${status})`);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
