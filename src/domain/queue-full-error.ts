import { CrewdError } from './errors.ts';

/**
 * A kickoff refused because its token already has as many executions waiting as the operator allows: nothing was
 * written, and the client may try again after `retryAfterSeconds` (sent as `Retry-After`).
 */
export class QueueFullError extends CrewdError {
  readonly retryAfterSeconds: number;

  constructor(queueLimit: number, retryAfterSeconds: number) {
    super(
      'RATE_LIMITED',
      `This token already has ${queueLimit} executions waiting to start; retry in ${retryAfterSeconds} seconds`,
      { retryable: true, details: { reason: 'queue_full', queue_limit: queueLimit } },
    );
    this.name = 'QueueFullError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Thrown by a store whose `createExecution` found the token's queue full; the service turns it into the error. */
export class QueueFull extends Error {
  constructor() {
    super('The token has as many executions waiting as its queue limit allows');
    this.name = 'QueueFull';
  }
}
