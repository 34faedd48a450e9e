/**
 * One error family for the whole project. Each error has a stable `code`; the HTTP layer maps codes to status
 * codes in one place, and `retryable` tells callers whether trying again may help.
 */
export type ErrorCode =
  | 'INVALID_JSON'
  | 'VALIDATION_ERROR'
  | 'MISSING_INPUTS'
  | 'UNAUTHORIZED'
  | 'NOT_FOUND'
  | 'NOT_PENDING_HUMAN_INPUT'
  | 'IDEMPOTENCY_CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'DEPENDENCY_UNAVAILABLE'
  | 'CREW_INVALID'
  | 'CONFIG_INVALID'
  | 'MODEL_ERROR'
  | 'REPLAY_MISS'
  | 'OUTPUT_INVALID'
  | 'TASK_FAILED'
  | 'CANCELLED'
  | 'INTERNAL';

export interface CrewdErrorOptions {
  readonly retryable?: boolean;
  readonly details?: Record<string, unknown>;
  readonly cause?: unknown;
}

export class CrewdError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: CrewdErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CrewdError';
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.details = options.details;
  }
}

/** Inputs named by `{placeholder}` that a kickoff did not supply. */
export class MissingInputsError extends CrewdError {
  readonly missingInputs: readonly string[];

  constructor(missingInputs: readonly string[]) {
    super('MISSING_INPUTS', 'Missing required inputs', { details: { missing_inputs: [...missingInputs] } });
    this.name = 'MissingInputsError';
    this.missingInputs = missingInputs;
  }
}

/** A crew directory that cannot be loaded; the message names the file, the key and, where known, the line. */
export class CrewLoadError extends CrewdError {
  readonly file: string;
  readonly key: string | undefined;
  readonly line: number | undefined;

  constructor(
    file: string,
    message: string,
    location: { key?: string; line?: number; cause?: unknown } = {},
  ) {
    const where = [file, location.line === undefined ? undefined : `line ${location.line}`]
      .filter(Boolean)
      .join(':');
    const key = location.key === undefined ? '' : ` (${location.key})`;
    super('CREW_INVALID', `${where}${key}: ${message}`, { cause: location.cause });
    this.name = 'CrewLoadError';
    this.file = file;
    this.key = location.key;
    this.line = location.line;
  }
}

/** A model call that failed; `retryable` for 429, 5xx, timeouts and resets. Carries no provider text. */
export class ModelCallError extends CrewdError {
  readonly status: number | undefined;
  /** Seconds the provider asked us to wait, from `Retry-After`. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    message: string,
    options: { status?: number; retryable: boolean; retryAfterSeconds?: number; cause?: unknown },
  ) {
    super('MODEL_ERROR', message, { retryable: options.retryable, cause: options.cause });
    this.name = 'ModelCallError';
    this.status = options.status;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export function isCrewdError(value: unknown): value is CrewdError {
  return value instanceof CrewdError;
}
