import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, RawServerDefault } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Metrics } from '../../observability/metrics.ts';
import type { ExecutionAccess, ExecutionService } from '../../service/execution-service.ts';

/** The server instance as the route modules see it: schemas are zod schemas and types follow from them. */
export type ZodApp = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/**
 * What a route answers a request with, found from the request: the same at the root of a server of one crew, the
 * crew the URL names under `/crews/{crew}`. Route modules are registered once, whatever the number of crews.
 */
export type PerRequest<T> = (request: FastifyRequest) => T;

/** What the route modules on executions already started share: they answer under a crew and at the root alike. */
export interface ExecutionRouteContext {
  /** The executions the request reaches: its crew's, or every served crew's at the root of several. */
  readonly serviceOf: PerRequest<ExecutionAccess>;
  readonly metrics: Metrics;
  readonly clock: () => Date;
}

/** What route modules share under a served crew's base URL (or at the root of a server of one crew). */
export interface RouteContext extends ExecutionRouteContext {
  readonly serviceOf: PerRequest<ExecutionService>;
  /** The path of the request's crew's base URL on this server: `/crews/<name>`, or empty at the root. */
  readonly basePathOf: PerRequest<string>;
}

/** Marks a route as needing a bearer token in the OpenAPI document. */
export const bearerSecurity = [{ bearerAuth: [] }];
