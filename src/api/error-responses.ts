import type { FastifyInstance, RouteOptions } from 'fastify';
import type { ZodType } from 'zod';
import { errorBodySchema } from './response-schemas.ts';

/** What each error status means, as the API description says it; every error has the contract's one body. */
const meanings: Readonly<Record<number, string>> = {
  400: 'The request is not valid: the message says what, details.fields lists each field',
  401: 'Invalid or missing bearer token',
  404: 'No such execution (or one another user started), or no such route',
  413: 'The body is larger than 1 MiB',
  422: 'Required inputs are missing, or an idempotency key came again with another body',
  429: 'Rate limited; Retry-After says when to try again',
  500: 'Internal server error',
  503: 'A service crewd depends on is unavailable; try again later',
};

function statusesOf(route: RouteOptions): readonly number[] {
  if (route.schema?.security === undefined) return [500, 503];
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  return methods.includes('POST') ? [400, 401, 404, 413, 422, 429, 500, 503] : [400, 401, 404, 429, 500, 503];
}

/**
 * Adds the error answers each route can give to its schema, for /openapi.json. Called before the API description
 * plugin and the routes, so the description sees every route with them.
 */
export function describeErrorResponses(app: FastifyInstance): void {
  // One described schema per status, shared by every route: a server of many crews has thousands of routes.
  const described = new Map<number, ZodType>();
  const schemaOf = (status: number): ZodType => {
    let schema = described.get(status);
    if (schema === undefined) {
      schema = errorBodySchema.describe(meanings[status] ?? 'Error');
      described.set(status, schema);
    }
    return schema;
  };
  app.addHook('onRoute', (route) => {
    const errors = Object.fromEntries(statusesOf(route).map((status) => [status, schemaOf(status)]));
    const response = (route.schema?.response ?? {}) as Record<string, unknown>;
    route.schema = { ...route.schema, response: { ...errors, ...response } };
  });
}
