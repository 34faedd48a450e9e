import { APICallError } from '@ai-sdk/provider';
import { ModelCallError } from '../domain/errors.ts';
import { retryAfterSeconds } from './retry-after.ts';

/** Statuses worth another try: timeouts, conflicts, rate limits and server-side failures. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

const statusHints: Partial<Record<number, string>> = {
  401: 'the API key was refused',
  403: 'the API key is not allowed to use this model',
  404: 'unknown model or endpoint',
};

/** Error codes of a connection that failed or was cut; worth another try. */
const connectionCodes = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * Turns whatever an AI SDK call threw into a `ModelCallError` whose message is ours: a status, a timeout, a
 * connection failure. Provider response text never enters the message (it may echo prompts or keys); the
 * original error stays as `cause` for logs.
 */
export function toModelCallError(error: unknown, nowMs: number): ModelCallError {
  if (error instanceof ModelCallError) return error;
  if (APICallError.isInstance(error) && error.statusCode !== undefined) {
    const status = error.statusCode;
    const hint = statusHints[status];
    const after = retryAfterSeconds(error.responseHeaders, nowMs);
    return new ModelCallError(`model returned HTTP ${status}${hint === undefined ? '' : ` (${hint})`}`, {
      status,
      retryable: isRetryableStatus(status),
      ...(after === undefined ? {} : { retryAfterSeconds: after }),
      cause: error,
    });
  }
  const code = connectionCode(error);
  if (code !== undefined || (APICallError.isInstance(error) && error.isRetryable)) {
    return new ModelCallError(`could not reach the model server${code === undefined ? '' : ` (${code})`}`, {
      retryable: true,
      cause: error,
    });
  }
  return new ModelCallError('model returned a response that could not be read', {
    retryable: false,
    cause: error,
  });
}

/** The first connection error code in the cause chain, if any. */
function connectionCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && connectionCodes.has(code)) return code;
    if (current instanceof TypeError && current.message === 'terminated') return 'connection closed';
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
