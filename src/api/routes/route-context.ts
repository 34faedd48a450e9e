import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Metrics } from '../../observability/metrics.ts';
import type { ExecutionService } from '../../service/execution-service.ts';

/** The server instance as the route modules see it: schemas are zod schemas and types follow from them. */
export type ZodApp = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/** What route modules share. */
export interface RouteContext {
  readonly service: ExecutionService;
  readonly metrics: Metrics;
  readonly clock: () => Date;
}

/** Marks a route as needing a bearer token in the OpenAPI document. */
export const bearerSecurity = [{ bearerAuth: [] }];
