import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CrewdError, isCrewdError } from '../domain/errors.ts';
import type { Caller } from '../service/execution-service.ts';
import { isDocsRoute } from './docs-security-headers.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller, or null (public route, or a missing or unknown token). */
    caller: Caller | null;
  }
  interface FastifyContextConfig {
    /** Served without a bearer token. */
    public?: boolean;
    /** Deploys: only deploy tokens reach it, and they reach nothing else. */
    deploy?: boolean;
  }
}

export type Authenticate = (secret: string) => Promise<Caller | null>;

/** The token from `Authorization: Bearer <token>`; null when the header is missing or of another scheme. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1] ?? null;
}

function isPublic(request: FastifyRequest): boolean {
  if (request.is404) return true;
  if (request.routeOptions.config.public === true) return true;
  // The documentation UI registers its own routes (pages, scripts, the spec it renders).
  return isDocsRoute(request.routeOptions.url ?? '');
}

export function unauthorized(): CrewdError {
  return new CrewdError('UNAUTHORIZED', 'Invalid or missing bearer token');
}

/** The caller of a protected route; the auth hooks guarantee one, this keeps handlers honest about it. */
export function callerOf(request: FastifyRequest): Caller {
  if (request.caller === null) throw unauthorized();
  return request.caller;
}

/** The token's caller, or null; a token store that does not answer is a 503, not a 401. */
export async function authenticateOrUnavailable(authenticate: Authenticate, token: string): Promise<Caller | null> {
  try {
    return await authenticate(token);
  } catch (error) {
    if (isCrewdError(error)) throw error;
    // The token store did not answer: the client should retry, not conclude its token is bad.
    throw new CrewdError('DEPENDENCY_UNAVAILABLE', 'Token store unavailable', { cause: error });
  }
}

/**
 * Resolves the caller when a request arrives and rejects unauthenticated requests to protected routes one step
 * later, so the rate limiter in between counts failed attempts against the client's address.
 */
export function installBearerAuth(app: FastifyInstance, authenticate: Authenticate): void {
  app.decorateRequest('caller', null);
  app.addHook('onRequest', async (request) => {
    if (isPublic(request)) return;
    const token = bearerToken(request.headers.authorization);
    const caller = token === null ? null : await authenticateOrUnavailable(authenticate, token);
    // A deploy token deploys and nothing else; deploying takes a token made for it. Elsewhere each is invalid.
    const deploying = request.routeOptions.config.deploy === true;
    request.caller = caller !== null && (caller.deploy === true) === deploying ? caller : null;
  });
  app.addHook('preParsing', (request, _reply, payload, done) => {
    done(!isPublic(request) && request.caller === null ? unauthorized() : null, payload);
  });
}
