import type { ErrorCode } from '../domain/errors.ts';

/**
 * The HTTP status for every error code, in one exhaustive map: adding a code without choosing its status fails to
 * compile. Codes that only engine or loader code raises are server faults when they reach a client.
 */
export const httpStatusByCode: Record<ErrorCode, number> = {
  INVALID_JSON: 400,
  VALIDATION_ERROR: 400,
  NOT_PENDING_HUMAN_INPUT: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  MISSING_INPUTS: 422,
  IDEMPOTENCY_CONFLICT: 422,
  RATE_LIMITED: 429,
  DEPENDENCY_UNAVAILABLE: 503,
  CREW_INVALID: 500,
  CONFIG_INVALID: 500,
  MODEL_ERROR: 500,
  REPLAY_MISS: 500,
  OUTPUT_INVALID: 500,
  TASK_FAILED: 500,
  CANCELLED: 500,
  INTERNAL: 500,
};

/** The `error` title of each error body; clients written for the hosted service compare some of these. */
export const errorTitleByCode: Record<ErrorCode, string> = {
  INVALID_JSON: 'Invalid Request',
  VALIDATION_ERROR: 'Invalid Request',
  NOT_PENDING_HUMAN_INPUT: 'Invalid Request',
  UNAUTHORIZED: 'Unauthorized',
  NOT_FOUND: 'Not Found',
  PAYLOAD_TOO_LARGE: 'Payload Too Large',
  MISSING_INPUTS: 'Validation Error',
  IDEMPOTENCY_CONFLICT: 'Validation Error',
  RATE_LIMITED: 'Too Many Requests',
  DEPENDENCY_UNAVAILABLE: 'Service Unavailable',
  CREW_INVALID: 'Internal Server Error',
  CONFIG_INVALID: 'Internal Server Error',
  MODEL_ERROR: 'Internal Server Error',
  REPLAY_MISS: 'Internal Server Error',
  OUTPUT_INVALID: 'Internal Server Error',
  TASK_FAILED: 'Internal Server Error',
  CANCELLED: 'Internal Server Error',
  INTERNAL: 'Internal Server Error',
};

export function httpStatusOf(code: ErrorCode): number {
  return httpStatusByCode[code];
}
