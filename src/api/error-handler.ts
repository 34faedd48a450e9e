import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CrewdError, isCrewdError } from '../domain/errors.ts';
import type { ErrorCode } from '../domain/errors.ts';
import { errorTitleByCode, httpStatusOf } from './http-status.ts';
import type { ErrorBody } from './response-schemas.ts';

export interface ErrorResponse {
  readonly status: number;
  readonly body: ErrorBody;
}

/** Messages for server-side faults: the internal message stays in the log, never in the body. */
const serverFaultMessages: Partial<Record<ErrorCode, string>> = {
  DEPENDENCY_UNAVAILABLE: 'A service crewd depends on is unavailable; try again later',
};
const internalMessage = 'Internal server error';

/** Messages the contract fixes word for word, whatever the raising code said. */
const contractMessages: Partial<Record<ErrorCode, string>> = {
  UNAUTHORIZED: 'Invalid or missing bearer token',
  MISSING_INPUTS: 'Missing required inputs',
  NOT_PENDING_HUMAN_INPUT: 'Execution is not in pending human input state',
};

/** Framework errors about the request body, by their code. */
const bodyErrorCodes: Readonly<Record<string, ErrorCode>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'INVALID_JSON',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_JSON',
};

const bodyErrorMessages: Partial<Record<ErrorCode, string>> = {
  PAYLOAD_TOO_LARGE: 'Request body is larger than the limit of 1 MiB',
  INVALID_JSON: 'Request body is not valid JSON',
};

/** Turns any thrown value into the contract's error body and status. */
export function toErrorResponse(error: unknown): ErrorResponse {
  if (isCrewdError(error)) return fromCrewdError(error);
  const frameworkCode = frameworkErrorCode(error);
  if (frameworkCode !== undefined) {
    return fromCrewdError(new CrewdError(frameworkCode, bodyErrorMessages[frameworkCode] ?? 'Bad request'));
  }
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
    message: serverFault
      ? (serverFaultMessages[error.code] ?? internalMessage)
      : (contractMessages[error.code] ?? error.message),
    code: error.code,
  };
  if (!serverFault && error.details !== undefined) body.details = error.details;
  return { status, body };
}

function frameworkErrorCode(error: unknown): ErrorCode | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? bodyErrorCodes[error.code] : undefined;
}

function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('statusCode' in error)) return undefined;
  return typeof error.statusCode === 'number' ? error.statusCode : undefined;
}

/** Every error and unknown route answers with the contract's error body; server faults are logged in full. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const response = toErrorResponse(error);
    if (response.status >= 500) {
      request.log.error(
        { err: error, method: request.method, route: request.routeOptions.url },
        'request failed',
      );
    }
    return reply.code(response.status).type('application/json; charset=utf-8').send(response.body);
  });
  app.setNotFoundHandler((_request, reply) => {
    const response = toErrorResponse(new CrewdError('NOT_FOUND', 'Route not found'));
    return reply.code(response.status).send(response.body);
  });
}
