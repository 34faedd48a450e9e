import type { ToolSourceStatus } from '../tools/tool-source.ts';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { LogController } from 'fastify';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CrewdError } from '../domain/errors.ts';
import type { OutputFileReader } from '../engine/output-files.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { ExecutionService } from '../service/execution-service.ts';
import { installBearerAuth } from './bearer-auth.ts';
import { openApiForCrew } from './crew-openapi.ts';
import { docsSecurityHeaders, isDocsRoute } from './docs-security-headers.ts';
import { publicExampleCrew } from './public-example-crew.ts';
import { capConnectionsPerAddress, connectionOptions, defaultConnectionLimits } from './connection-limits.ts';
import type { ConnectionLimits } from './connection-limits.ts';
import { installJsonBodyParser } from './json-body-parser.ts';
import type { Authenticate } from './bearer-auth.ts';
import { answerClientError, answerFrameworkError, installErrorHandling } from './error-handler.ts';
import { describeErrorResponses } from './error-responses.ts';
import { zodValidatorCompiler } from './request-validation.ts';
import { errorBodySchema } from './response-schemas.ts';
import { defaultTokenRecheckMs } from './stream-token-watch.ts';
import { registerConsoleApiRoutes } from './routes/console-api-routes.ts';
import { registerCrewRoutes } from './routes/crew-routes.ts';
import { registerEventStreamRoute, serverClosing } from './routes/event-stream-route.ts';
import { registerExecutionRoutes } from './routes/execution-routes.ts';
import { registerMcpRoutes } from './routes/mcp-routes.ts';
import { registerOperationsRoutes } from './routes/operations-routes.ts';
import { registerOutputFileRoute } from './routes/output-file-route.ts';
import type { RouteContext } from './routes/route-context.ts';
import { registerScheduleRoutes } from './routes/schedule-routes.ts';
import { registerTriggerRoutes } from './routes/trigger-routes.ts';
import type { ScheduleService } from '../service/schedule-service.ts';
import type { TriggerService } from '../service/trigger-service.ts';

export interface ServerDeps {
  readonly service: ExecutionService;
  /** The caller a bearer token stands for, or null when it is unknown or revoked. */
  readonly authenticate: Authenticate;
  readonly metrics: Metrics;
  /** A pino logger (or any compatible one); false or absent logs nothing. */
  readonly logger?: FastifyBaseLogger | false;
  /** Requests per minute per token (per address without one); 0 turns the limit off. */
  readonly rateLimitPerMinute: number;
  /** Resolves when the store answers: `GET /health/ready`. */
  readonly ready: () => Promise<void>;
  readonly clock?: () => Date;
  /** Interval of the comment lines that keep idle event streams open (default 15 s). */
  readonly heartbeatMs?: number;
  /** How often an open event stream's token is checked again while nothing is sent (default 250 ms). */
  readonly tokenRecheckMs?: number;
  /** How long `GET /health/ready` waits for `ready()` (default 2 s). */
  readonly readyTimeoutMs?: number;
  /** Whether each tool source can be called now (`GET /health/ready`); none when absent. */
  readonly toolSources?: () => readonly ToolSourceStatus[];
  /** Time and connection limits; `defaultConnectionLimits` for those not given. */
  readonly connectionLimits?: Partial<ConnectionLimits>;
  /** Reads back tasks' `output_file`s for download; without it the download route is absent. */
  readonly outputFiles?: OutputFileReader;
  /** The crew's schedules (`/schedules`); without it those routes are absent. */
  readonly schedules?: ScheduleService;
  /** Events from other systems (`/triggers/<name>`); without it that route is absent. */
  readonly triggers?: TriggerService;
}

/** 1 MiB: larger request bodies answer 413. */
export const bodyLimitBytes = 1024 * 1024;

/** The HTTP API (CONTRACT §3, §5, §6) over an execution service. Call `listen` on the result. */
export async function buildServer(deps: ServerDeps): Promise<FastifyInstance> {
  const logger = deps.logger ?? false;
  const limits = { ...defaultConnectionLimits, ...deps.connectionLimits };
  const options = {
    ...connectionOptions(limits),
    bodyLimit: bodyLimitBytes,
    // Ids far longer than any kickoff id answer 404 like any unknown id, in the contract's error shape.
    routerOptions: { maxParamLength: 500 },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  };
  const app = (
    logger === false
      ? Fastify({ logger: false, ...options })
      : // Per-request log lines cost more than the /status route itself; errors are still logged.
        Fastify({
          loggerInstance: logger,
          ...options,
          logController: new LogController({ disableRequestLogging: true }),
          // A child logger per request costs more than a status read; error lines carry the route instead.
          childLoggerFactory: (parent) => parent,
        })
  ).withTypeProvider<ZodTypeProvider>();

  capConnectionsPerAddress(app.server, limits.connectionsPerAddress);
  app.setValidatorCompiler(zodValidatorCompiler);
  // Response schemas describe the API in /openapi.json; the handlers' types already guarantee the shapes, so
  // replies are serialized without validating them again on every request.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  installJsonBodyParser(app);
  const clock = deps.clock ?? (() => new Date());
  const unavailable = installErrorHandling(app, () => clock().getTime());
  installBearerAuth(app, deps.authenticate);
  app.addHook('onResponse', (request, reply, done) => {
    deps.metrics.observeHttpRequest(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });

  // Both plugins collect routes as they are added, so they come before every route.
  describeErrorResponses(app);
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        // Public: nothing of the crew but its inputs (its name, agents and tasks are GET /crew's, behind a token).
        title: 'crewd',
        description: 'Runs the crew over HTTP: kickoff, status, human feedback, events.',
        version: '1.0.0',
      },
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
        schemas: { ErrorBody: z.toJSONSchema(errorBodySchema, { target: 'draft-2020-12' }) as object },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: (document) =>
      'openapiObject' in document
        ? openApiForCrew(document.openapiObject, publicExampleCrew(deps.service.crew))
        : document.swaggerObject,
  });
  // The UI's static files are served by a plugin of its own, out of reach of its route hooks.
  app.addHook('onRequest', (request, reply, done) => {
    if (isDocsRoute(request.routeOptions.url ?? '')) void reply.headers(docsSecurityHeaders);
    done();
  });
  await app.register(fastifySwaggerUi, {
    routePrefix: '/docs',
    theme: { title: 'crewd API' },
    uiConfig: { url: '/openapi.json' },
  });
  if (deps.rateLimitPerMinute > 0) {
    await app.register(fastifyRateLimit, {
      max: deps.rateLimitPerMinute,
      timeWindow: 60_000,
      keyGenerator: (request) =>
        request.caller === null ? `address:${request.ip}` : `token:${request.caller.tokenId}`,
      errorResponseBuilder: (_request, context) =>
        new CrewdError('RATE_LIMITED', `Rate limit exceeded; retry in ${context.after}`),
    });
  }

  const context: RouteContext = {
    service: deps.service,
    metrics: deps.metrics,
    clock,
  };
  const openStreams = new Set<AbortController>();
  app.addHook('preClose', (done) => {
    for (const stream of openStreams) stream.abort(serverClosing);
    done();
  });
  registerCrewRoutes(app, context);
  registerExecutionRoutes(app, context);
  if (deps.schedules !== undefined)
    registerScheduleRoutes(app, { schedules: deps.schedules, clock: context.clock });
  if (deps.triggers !== undefined) {
    registerTriggerRoutes(app, { triggers: deps.triggers, authenticate: deps.authenticate });
  }
  if (deps.outputFiles !== undefined) registerOutputFileRoute(app, { ...context, files: deps.outputFiles });
  registerConsoleApiRoutes(app, context);
  registerMcpRoutes(app, { ...context, authenticate: deps.authenticate });
  registerEventStreamRoute(app, {
    ...context,
    heartbeatMs: deps.heartbeatMs ?? 15_000,
    authenticate: deps.authenticate,
    tokenRecheckMs: deps.tokenRecheckMs ?? defaultTokenRecheckMs,
    openStreams,
    unavailable,
  });
  registerOperationsRoutes(app, {
    ...context,
    ready: deps.ready,
    readyTimeoutMs: deps.readyTimeoutMs ?? 2_000,
    toolSources: deps.toolSources ?? (() => []),
  });
  return app;
}
