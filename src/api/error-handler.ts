import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CrewdError, isCrewdError } from '../domain/errors.ts';
import type { ErrorCode } from '../domain/errors.ts';
import { QueueFullError } from '../domain/queue-full-error.ts';
import { errorTitleByCode, httpStatusOf } from './http-status.ts';
import type { ErrorBody } from './response-schemas.ts';
import { isStoreUnavailable } from '../store/store-unavailable.ts';
import { UnavailableLog } from './unavailable-log.ts';

export interface ErrorResponse {
  readonly status: number;
  readonly body: ErrorBody;
}

/** Messages for server-side faults: the internal message stays in the log, never in the body. */
const serverFaultMessages: Partial<Record<ErrorCode, string>> = {
  DEPENDENCY_UNAVAILABLE: 'A service crewd depends on is unavailable; try again later',
};
const internalMessage = 'Internal server error';

/** Seconds a client is asked to wait before trying a request answered 503 again. */
export const unavailableRetryAfterSeconds = 5;

/** Messages the contract fixes word for word, whatever the raising code said. */
const contractMessages: Partial<Record<ErrorCode, string>> = {
  UNAUTHORIZED: 'Invalid or missing bearer token',
  MISSING_INPUTS: 'Missing required inputs',
  NOT_PENDING_HUMAN_INPUT: 'Execution is not in pending human input state',
};

/** Framework errors about the request, by their code: what they mean for the client, in the contract's terms. */
const frameworkErrors: Readonly<Record<string, { readonly code: ErrorCode; readonly message: string }>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: 'PAYLOAD_TOO_LARGE',
    message: 'Request body is larger than the limit of 1 MiB',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'INVALID_JSON', message: 'Request body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'INVALID_JSON', message: 'Request body is not valid JSON' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'INVALID_JSON', message: 'Request body is not valid JSON' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'INVALID_JSON', message: 'Request body is not valid JSON' },
  FST_ERR_BAD_URL: { code: 'VALIDATION_ERROR', message: 'The request URL is not valid' },
  // A path segment far longer than any id: nothing is there.
  FST_ERR_MAX_PARAM_LENGTH: { code: 'NOT_FOUND', message: 'Not found' },
};

/** Turns any thrown value into the contract's error body and status. */
export function toErrorResponse(error: unknown): ErrorResponse {
  if (isCrewdError(error)) return fromCrewdError(error);
  const framework = frameworkErrorOf(error);
  if (framework !== undefined) return fromCrewdError(new CrewdError(framework.code, framework.message));
  const status = statusOf(error);
  if (status === 404) return fromCrewdError(new CrewdError('NOT_FOUND', 'Not found'));
  if (status !== undefined && status >= 400 && status < 500) {
    return fromCrewdError(new CrewdError('VALIDATION_ERROR', 'The request could not be processed'));
  }
  return fromCrewdError(new CrewdError('INTERNAL', internalMessage));
}

function fromCrewdError(error: CrewdError): ErrorResponse {
  const status = httpStatusOf(error.code);
  const serverFault = status >= 500;
  const body: ErrorBody = {
    error: errorTitleByCode[error.code],
    message: serverFault ? serverFaultMessage(error) : (contractMessages[error.code] ?? error.message),
    code: error.code,
  };
  if (!serverFault && error.details !== undefined) body.details = error.details;
  return { status, body };
}

/** A store outage says which (its message names no address or path); other server faults stay generic. */
function serverFaultMessage(error: CrewdError): string {
  if (isStoreUnavailable(error)) return `${error.message}; try again later`;
  return serverFaultMessages[error.code] ?? internalMessage;
}

function frameworkErrorOf(error: unknown): (typeof frameworkErrors)[string] | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? frameworkErrors[error.code] : undefined;
}

function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('statusCode' in error)) return undefined;
  return typeof error.statusCode === 'number' ? error.statusCode : undefined;
}

/** Answers errors the framework meets before routing (a malformed URL, an id past any length) like any other. */
export function answerFrameworkError(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const response = toErrorResponse(error);
  closeIfRefused(reply, response.status);
  void reply.code(response.status).type('application/json; charset=utf-8').send(response.body);
}

/**
 * A request refused before its body was read (no valid token, a body over the limit) ends its connection: the
 * client may still be sending that body, and a kept connection would let it hold the socket as long as it likes.
 */
function closeIfRefused(reply: FastifyReply, status: number): void {
  if (status === 401 || status === 413) void reply.header('connection', 'close');
}

/**
 * Answers a request Node could not even parse as HTTP (a bad header, an unknown method, a wrong length), in the
 * contract's error shape, then closes the connection as Node does.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const message =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? 'Request headers are larger than the limit'
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'The request was not received in time'
          : 'The request is not valid HTTP';
    const { status, body } = fromCrewdError(new CrewdError('VALIDATION_ERROR', message));
    const text = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${status} Bad Request\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(error);
}

/**
 * Every error and unknown route answers with the contract's error body; server faults are logged in full, except
 * 503s, which `UnavailableLog` sums up. `now` is in milliseconds. Returns that log, for failures that reach no
 * error handler (an event stream fails after its headers went out).
 */
export function installErrorHandling(app: FastifyInstance, now: () => number): UnavailableLog {
  const unavailable = new UnavailableLog(app.log, now);
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const response = toErrorResponse(error);
    if (response.status === 503) {
      unavailable.record(error, request.routeOptions.url);
      void reply.header('retry-after', String(unavailableRetryAfterSeconds));
    } else if (response.status === 429 && error instanceof QueueFullError) {
      void reply.header('retry-after', String(error.retryAfterSeconds));
    } else if (response.status >= 500) {
      request.log.error(
        { err: error, method: request.method, route: request.routeOptions.url },
        'request failed',
      );
    }
    closeIfRefused(reply, response.status);
    return reply.code(response.status).type('application/json; charset=utf-8').send(response.body);
  });
  app.setNotFoundHandler((_request, reply) => {
    const response = toErrorResponse(new CrewdError('NOT_FOUND', 'Route not found'));
    return reply.code(response.status).send(response.body);
  });
  return unavailable;
}
