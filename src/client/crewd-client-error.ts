/**
 * Every failure of the client: an error answer of the server, with the contract's stable `code` (`NOT_FOUND`,
 * `VALIDATION_ERROR`, `MISSING_INPUTS`, `NOT_PENDING_HUMAN_INPUT`, …), or a server that cannot be reached
 * (`code` `UNREACHABLE`, `status` null).
 */
export class CrewdClientError extends Error {
  /** The `code` of the error body; for an answer without one, a code for its status. */
  readonly code: string;
  /** The HTTP status, or null when no answer came. */
  readonly status: number | null;
  /** The error body's `details`, e.g. `{missing_inputs: [...]}`. */
  readonly details: Record<string, unknown> | undefined;
  /** The error body's `error` title, e.g. `Validation Error`. */
  readonly title: string | undefined;

  constructor(
    message: string,
    fields: {
      readonly code: string;
      readonly status: number | null;
      readonly details?: Record<string, unknown> | undefined;
      readonly title?: string | undefined;
      readonly cause?: unknown;
    },
  ) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = 'CrewdClientError';
    this.code = fields.code;
    this.status = fields.status;
    this.details = fields.details;
    this.title = fields.title;
  }

  /** True when trying again later may help: the server was unreachable, busy or rate limiting. */
  get retryable(): boolean {
    return this.status === null || this.status === 429 || this.status === 503;
  }
}

const codeByStatus: Readonly<Record<number, string>> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  404: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  422: 'VALIDATION_ERROR',
  429: 'RATE_LIMITED',
  503: 'DEPENDENCY_UNAVAILABLE',
};

/** The error for an answer with status `status` and parsed body `body` (anything, when it was not JSON). */
export function errorFromAnswer(status: number, body: unknown): CrewdClientError {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const message = typeof fields.message === 'string' ? fields.message : `The server answered HTTP ${status}`;
  const details =
    typeof fields.details === 'object' && fields.details !== null
      ? (fields.details as Record<string, unknown>)
      : undefined;
  return new CrewdClientError(message, {
    code: typeof fields.code === 'string' ? fields.code : (codeByStatus[status] ?? 'INTERNAL'),
    status,
    details,
    title: typeof fields.error === 'string' ? fields.error : undefined,
  });
}
