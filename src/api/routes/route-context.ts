import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
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

/** What the route modules on executions already started share: they answer under a crew and at the root alike. */
export interface ExecutionRouteContext {
  readonly service: ExecutionAccess;
  readonly metrics: Metrics;
  readonly clock: () => Date;
}

/** What route modules share under one served crew's base URL (or at the root of a server of one crew). */
export interface RouteContext extends ExecutionRouteContext {
  readonly service: ExecutionService;
  /** The crew's name, as in its base URL `/crews/<name>`. */
  readonly crewName?: string;
}

/** Marks a route as needing a bearer token in the OpenAPI document. */
export const bearerSecurity = [{ bearerAuth: [] }];
