import { isCrewdError } from '../domain/errors.ts';
import type { CrewdError } from '../domain/errors.ts';
import type { Authenticate } from './bearer-auth.ts';
import { unauthorized } from './bearer-auth.ts';

/** How often an open stream's token is checked again while nothing is sent (default). */
export const defaultTokenRecheckMs = 250;

export interface StreamTokenWatch {
  /** Resolves while the token still authenticates; throws the 401 error once it no longer does. */
  readonly check: () => Promise<void>;
  readonly stop: () => void;
}

export interface StreamTokenWatchOptions {
  readonly authenticate: Authenticate;
  /** The bearer token the stream was opened with. */
  readonly secret: string;
  readonly intervalMs: number;
  /** Called once, with the 401 error, when a periodic check finds the token revoked. */
  readonly onRevoked: (error: CrewdError) => void;
}

/**
 * Checks an open stream's token again the way every request's token is checked (the token service's short cache,
 * then the store, where another process's revocation shows), so a revoked token loses its streams as fast as its
 * requests: before each event is sent, and on a timer while none is (a paused execution can stay quiet for days).
 */
export function watchStreamToken(options: StreamTokenWatchOptions): StreamTokenWatch {
  const check = async (): Promise<void> => {
    if ((await options.authenticate(options.secret)) === null) throw unauthorized();
  };
  let checking = false;
  let stopped = false;
  const timer = setInterval(() => {
    if (checking || stopped) return;
    checking = true;
    check()
      .then(
        () => undefined,
        (error: unknown) => {
          // A store that does not answer is no revocation: the next tick asks again.
          if (!stopped && isCrewdError(error) && error.code === 'UNAUTHORIZED') {
            stopped = true;
            clearInterval(timer);
            options.onRevoked(error);
          }
        },
      )
      .finally(() => {
        checking = false;
      });
  }, options.intervalMs);
  return {
    check,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
