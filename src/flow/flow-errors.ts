import { CrewdError } from '../domain/errors.ts';

/**
 * A flow that cannot be loaded: the message is crewAI's own where crewAI has one, prefixed by the file and, in
 * parentheses, the key it is about.
 */
export class FlowDefinitionError extends CrewdError {
  readonly file: string;
  readonly key: string | undefined;

  constructor(file: string, message: string, key?: string, cause?: unknown) {
    super('CREW_INVALID', `${file}${key === undefined || key === '' ? '' : ` (${key})`}: ${message}`, {
      cause,
    });
    this.name = 'FlowDefinitionError';
    this.file = file;
    this.key = key;
  }
}

/** A method of a running flow that failed; `method` names it, the message says why (crewAI's text where it has one). */
export class FlowMethodError extends CrewdError {
  readonly method: string;

  constructor(method: string, message: string, cause?: unknown) {
    super('TASK_FAILED', message, { cause, details: { method } });
    this.name = 'FlowMethodError';
    this.method = method;
  }
}

/** A CEL expression that is not valid where it is written; the message is crewAI's. */
export class ExpressionSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpressionSyntaxError';
  }
}

/** A CEL expression that failed while it ran: crewAI's `failed to evaluate CEL expression '…': …`. */
export class ExpressionEvaluationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpressionEvaluationError';
  }
}

/**
 * What a run's `beforeModelCall` threw, carried through the method untouched: it stops the whole run and is no
 * failure of the method. `runFlow` rethrows `thrown` to its caller.
 */
export class FlowStopped extends Error {
  constructor(readonly thrown: unknown) {
    super('The flow run was stopped before a model call');
    this.name = 'FlowStopped';
  }
}
