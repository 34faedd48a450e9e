import { describe, expect, it } from 'vitest';
import { CrewdError, MissingInputsError, ModelCallError } from '../domain/errors.ts';
import { toErrorResponse } from './error-handler.ts';

describe('toErrorResponse', () => {
  it('keeps client errors as raised, with their details', () => {
    expect(toErrorResponse(new MissingInputsError(['topic']))).toEqual({
      status: 422,
      body: {
        error: 'Validation Error',
        message: 'Missing required inputs',
        code: 'MISSING_INPUTS',
        details: { missing_inputs: ['topic'] },
      },
    });
    expect(toErrorResponse(new CrewdError('NOT_FOUND', 'Execution x not found')).status).toBe(404);
  });

  it('uses the wording the contract fixes', () => {
    const response = toErrorResponse(new CrewdError('NOT_PENDING_HUMAN_INPUT', 'Task b is not waiting'));

    expect(response.body).toEqual({
      error: 'Invalid Request',
      message: 'Execution is not in pending human input state',
      code: 'NOT_PENDING_HUMAN_INPUT',
    });
  });

  it('never carries the message or details of a server fault', () => {
    const fault = new ModelCallError('upstream said: invalid api key sk-123', { retryable: false });
    const withDetails = new CrewdError('INTERNAL', 'at /srv/crewd/src/x.ts:10', {
      details: { sql: 'SELECT' },
    });

    expect(toErrorResponse(fault)).toEqual({
      status: 500,
      body: { error: 'Internal Server Error', message: 'Internal server error', code: 'MODEL_ERROR' },
    });
    expect(toErrorResponse(withDetails).body).toEqual({
      error: 'Internal Server Error',
      message: 'Internal server error',
      code: 'INTERNAL',
    });
    expect(toErrorResponse(new TypeError('x is undefined')).body.code).toBe('INTERNAL');
  });

  it('maps framework body errors to 400 and 413', () => {
    expect(toErrorResponse({ code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 })).toMatchObject({
      status: 400,
      body: { code: 'INVALID_JSON' },
    });
    expect(toErrorResponse({ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 })).toMatchObject({
      status: 413,
      body: { code: 'PAYLOAD_TOO_LARGE' },
    });
    expect(
      toErrorResponse({ code: 'FST_ERR_SOMETHING', statusCode: 400, message: 'internal words' }).body,
    ).toEqual({
      error: 'Invalid Request',
      message: 'The request could not be processed',
      code: 'VALIDATION_ERROR',
    });
  });
});
