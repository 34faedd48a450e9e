import { CrewdError, ModelCallError, type ErrorCode } from '../domain/errors.ts';
import type { ChatRequest, ChatResponse } from './chat-model.ts';
import type { AdapterName, AdapterOptions } from './model-adapters.ts';

/** What the server's thread asks of the model thread. Options carry data only: no `fetch`, no clock. */
export type ModelThreadRequest =
  | {
      readonly kind: 'open';
      readonly model: number;
      readonly adapter: AdapterName;
      readonly options: AdapterOptions[AdapterName];
    }
  | { readonly kind: 'call'; readonly call: number; readonly model: number; readonly request: ChatRequest }
  | { readonly kind: 'abort'; readonly call: number };

/** What the model thread answers: a call's response or its failure, by the call's number. */
export type ModelThreadReply =
  | { readonly kind: 'answer'; readonly call: number; readonly response: ChatResponse }
  | { readonly kind: 'failure'; readonly call: number; readonly error: CallFailure };

/** A failed call's error, as data: crewd's own error fields; of the original cause, its message only (for logs). */
export interface CallFailure {
  readonly code: ErrorCode;
  readonly message: string;
  readonly retryable: boolean;
  readonly status?: number;
  readonly retryAfterSeconds?: number;
  readonly cause?: string;
}

export function callFailure(error: unknown): CallFailure {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  const withCause = cause === undefined ? {} : { cause };
  if (error instanceof ModelCallError) {
    return {
      code: error.code,
      message: error.message,
      retryable: error.retryable,
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
      ...withCause,
    };
  }
  if (error instanceof CrewdError) {
    return { code: error.code, message: error.message, retryable: error.retryable, ...withCause };
  }
  return {
    code: 'MODEL_ERROR',
    message: 'the model call failed',
    retryable: false,
    ...(error instanceof Error ? { cause: error.message } : {}),
  };
}

/** The error a failure stands for, of the same class and fields as the one thrown in the model thread. */
export function failureError(failure: CallFailure): CrewdError {
  const cause = failure.cause === undefined ? undefined : new Error(failure.cause);
  if (failure.code === 'MODEL_ERROR') {
    return new ModelCallError(failure.message, {
      retryable: failure.retryable,
      ...(failure.status === undefined ? {} : { status: failure.status }),
      ...(failure.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: failure.retryAfterSeconds }),
      ...(cause === undefined ? {} : { cause }),
    });
  }
  return new CrewdError(failure.code, failure.message, {
    retryable: failure.retryable,
    ...(cause === undefined ? {} : { cause }),
  });
}
