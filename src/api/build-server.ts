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
import { reachesCrew } from '../domain/crew-name.ts';
import type { ExecutionAccess, ExecutionService } from '../service/execution-service.ts';
import { installBearerAuth } from './bearer-auth.ts';
import { servedCrewDocument } from './served-crew-document.ts';
import { docsSecurityHeaders, isDocsRoute } from './docs-security-headers.ts';
import { capConnectionsPerAddress, connectionOptions, defaultConnectionLimits } from './connection-limits.ts';
import type { ConnectionLimits } from './connection-limits.ts';
import { installJsonBodyParser } from './json-body-parser.ts';
import type { Authenticate } from './bearer-auth.ts';
import { answerClientError, answerFrameworkError, installErrorHandling } from './error-handler.ts';
import { describeErrorResponses } from './error-responses.ts';
import { zodValidatorCompiler } from './request-validation.ts';
import { errorBodySchema } from './response-schemas.ts';
import { defaultTokenRecheckMs } from './stream-token-watch.ts';
import { registerA2aRoutes } from './routes/a2a-routes.ts';
import { registerConsoleFilesRoute } from './routes/console-files-route.ts';
import { registerCrewDescriptionRoute } from './routes/crew-description-route.ts';
import {
  registerExecutionStateRoutes,
  registerHealthyRoute,
  registerKickoffRoutes,
} from './routes/crew-routes.ts';
import { registerCrewVersionsRoute } from './routes/crew-versions-route.ts';
import { registerDeployRoute } from './routes/deploy-route.ts';
import { registerExecutionDetailRoute } from './routes/execution-detail-route.ts';
import { registerEventStreamRoute, serverClosing } from './routes/event-stream-route.ts';
import { registerExecutionRoutes } from './routes/execution-routes.ts';
import { registerMcpRoutes } from './routes/mcp-routes.ts';
import { registerOperationsRoutes } from './routes/operations-routes.ts';
import { registerOutputFileRoute } from './routes/output-file-route.ts';
import type { ExecutionRouteContext, PerRequest, RouteContext, ZodApp } from './routes/route-context.ts';
import { registerScheduleRoutes } from './routes/schedule-routes.ts';
import { baseUrlOf, registerServedCrewsRoute, type ServedCrew } from './routes/served-crews-route.ts';
import { registerTriggerRoutes } from './routes/trigger-routes.ts';
import type { ScheduleService } from '../service/schedule-service.ts';
import type { TriggerService } from '../service/trigger-service.ts';
import type { CrewDeployer, CrewVersionListing } from '../service/crew-version-source.ts';
import {
  CrewPartRoutes,
  installServedCrewLookup,
  routeLabelOf,
  servedCrewOf,
  servedCrewPart,
  servedCrewPrefix,
  type CrewPart,
} from './served-crew-lookup.ts';

export interface ServerDeps {
  /**
   * The crew the root answers as, with every route of the interface: a server of one crew. Without it the root
   * answers for the executions of every crew in `crews` (`everyCrew`), and kickoffs are each crew's own.
   */
  readonly service?: ExecutionService;
  /** Each served crew, answering the whole interface under its base URL `/crews/<name>`. */
  readonly crews?: readonly ServedCrew[];
  /** The executions of every served crew, for the root of a server of several. */
  readonly everyCrew?: ExecutionAccess;
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
  /** The root crew's schedules (`/schedules`), with `service`; without it those routes are absent. */
  readonly schedules?: ScheduleService;
  /** Events from other systems for the root crew (`/triggers/<name>`), with `service`; without it that route is absent. */
  readonly triggers?: TriggerService;
}

/** What one crew's routes answer beside its executions, found from the request; a part's routes are absent without it. */
interface CrewParts {
  readonly versionsOf?: PerRequest<CrewVersionListing>;
  readonly schedulesOf?: PerRequest<ScheduleService>;
  readonly triggersOf?: PerRequest<TriggerService>;
  readonly deployerOf?: PerRequest<CrewDeployer>;
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
  // Before the bearer check: a crew this server does not serve is an unknown route, whatever the token.
  installServedCrewLookup(app, new Map((deps.crews ?? []).map((crew) => [crew.name, crew])));
  installBearerAuth(app, deps.authenticate);
  app.addHook('onResponse', (request, reply, done) => {
    deps.metrics.observeHttpRequest(
      request.method,
      routeLabelOf(request),
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });

  let crewBase: JsonObject | undefined;
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
    transformObject: (document) => {
      if (!('openapiObject' in document)) return document.swaggerObject;
      // Made once, with the root's: the paths under every crew's base URL as seen from there, written for each
      // crew's version served when asked for (servedCrewDocument).
      crewBase = crewPaths(document.openapiObject);
      return rootDocument(document.openapiObject);
    },
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

  const openStreams = new Set<AbortController>();
  app.addHook('preClose', (done) => {
    for (const stream of openStreams) stream.abort(serverClosing);
    done();
  });
  const executionRoutes = (scope: ZodApp, context: ExecutionRouteContext): void => {
    registerExecutionStateRoutes(scope, context);
    registerExecutionRoutes(scope, context);
    registerExecutionDetailRoute(scope, context);
    if (deps.outputFiles !== undefined)
      registerOutputFileRoute(scope, { ...context, files: deps.outputFiles });
    registerEventStreamRoute(scope, {
      ...context,
      heartbeatMs: deps.heartbeatMs ?? 15_000,
      authenticate: deps.authenticate,
      tokenRecheckMs: deps.tokenRecheckMs ?? defaultTokenRecheckMs,
      openStreams,
      unavailable,
    });
  };
  // Every route of one crew, at the root or under `/crews/{crew}`: route modules registered here answer under each.
  const crewRoutes = (
    scope: ZodApp,
    context: RouteContext,
    parts: CrewParts,
    inPart: CrewPartRoutes['register'],
  ): void => {
    registerHealthyRoute(scope);
    registerKickoffRoutes(scope, context);
    registerCrewDescriptionRoute(scope, context);
    const { versionsOf, schedulesOf, triggersOf, deployerOf } = parts;
    if (versionsOf !== undefined) inPart('versions', () => registerCrewVersionsRoute(scope, versionsOf));
    executionRoutes(scope, context);
    if (schedulesOf !== undefined)
      inPart('schedules', () => registerScheduleRoutes(scope, { schedulesOf, clock: context.clock }));
    if (triggersOf !== undefined)
      inPart('triggers', () => registerTriggerRoutes(scope, { triggersOf, authenticate: deps.authenticate }));
    registerA2aRoutes(scope, {
      ...context,
      authenticate: deps.authenticate,
      tokenRecheckMs: deps.tokenRecheckMs ?? defaultTokenRecheckMs,
    });
    registerMcpRoutes(scope, { ...context, authenticate: deps.authenticate });
    if (deployerOf !== undefined) inPart('deployer', () => registerDeployRoute(scope, deployerOf));
  };
  const base = { metrics: deps.metrics, clock };
  if (deps.service !== undefined) {
    const { service } = deps;
    const versions = deps.crews?.[0]?.versions;
    const { schedules, triggers } = deps;
    crewRoutes(
      app,
      { ...base, serviceOf: () => service, basePathOf: () => '' },
      {
        ...(versions === undefined ? {} : { versionsOf: () => versions }),
        ...(schedules === undefined ? {} : { schedulesOf: () => schedules }),
        ...(triggers === undefined ? {} : { triggersOf: () => triggers }),
      },
      (_part, register) => register(),
    );
  } else {
    registerHealthyRoute(app);
    const { everyCrew } = deps;
    if (everyCrew !== undefined) executionRoutes(app, { ...base, serviceOf: () => everyCrew });
  }
  registerConsoleFilesRoute(app);
  const { service } = deps;
  registerOperationsRoutes(app, {
    ...base,
    // One crew's root describes that crew, as served now.
    apiDocument:
      service === undefined
        ? () => app.swagger()
        : servedCrewDocument(
            () => app.swagger() as unknown as JsonObject,
            () => service.crew,
          ),
    ready: deps.ready,
    readyTimeoutMs: deps.readyTimeoutMs ?? 2_000,
    toolSources: deps.toolSources ?? (() => []),
  });
  if (deps.crews !== undefined) {
    const served = deps.crews;
    registerServedCrewsRoute(app, served);
    // One set of routes serves every crew, each finding its crew from the URL (installServedCrewLookup): starting
    // takes as long with a hundred crews as with one.
    await app.register(
      (scope: ZodApp, _options, done) => {
        // A token limited to other crews is refused here as an unknown one: the bearer check that follows
        // answers 401 for it.
        scope.addHook('onRequest', (request, _reply, next) => {
          if (request.caller !== null && !reachesCrew(request.caller.crews, servedCrewOf(request).name))
            request.caller = null;
          next();
        });
        const some = (part: CrewPart): boolean => served.some((crew) => crew[part] !== undefined);
        const parts = new CrewPartRoutes(scope);
        crewRoutes(
          scope,
          {
            ...base,
            serviceOf: (request) => servedCrewOf(request).service,
            basePathOf: (request) => baseUrlOf(servedCrewOf(request).name),
          },
          {
            ...(some('versions') ? { versionsOf: (request) => servedCrewPart(request, 'versions') } : {}),
            ...(some('schedules') ? { schedulesOf: (request) => servedCrewPart(request, 'schedules') } : {}),
            ...(some('triggers') ? { triggersOf: (request) => servedCrewPart(request, 'triggers') } : {}),
            ...(some('deployer') ? { deployerOf: (request) => servedCrewPart(request, 'deployer') } : {}),
          },
          parts.register,
        );
        // Each crew's document, made when first asked for, from the one of the routes under `/crews/{crew}`.
        const documents = new Map<string, () => JsonObject>();
        const documentOf = (crew: ServedCrew): JsonObject => {
          let document = documents.get(crew.name);
          if (document === undefined) {
            document = servedCrewDocument(
              () => {
                app.swagger();
                return withoutLackedParts(crewBase!, crew, parts);
              },
              () => crew.service.crew,
              { servers: [{ url: baseUrlOf(crew.name) }] },
            );
            documents.set(crew.name, document);
          }
          return document();
        };
        scope.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, (request) =>
          documentOf(servedCrewOf(request)),
        );
        done();
      },
      { prefix: servedCrewPrefix },
    );
  }
  return app;
}

type JsonObject = Record<string, unknown>;

/** The root's document: the crews' own routes are in theirs. */
function rootDocument(document: JsonObject): JsonObject {
  const paths = (document.paths ?? {}) as JsonObject;
  return {
    ...document,
    paths: Object.fromEntries(Object.entries(paths).filter(([path]) => !path.startsWith('/crews/'))),
  };
}

/**
 * The paths under `/crews/{crew}` as seen from a crew's base URL, before the document is written for one crew:
 * without the `crew` path parameter, which the base URL fixes.
 */
function crewPaths(document: JsonObject): JsonObject {
  const prefix = '/crews/{crew}';
  const paths: JsonObject = {};
  for (const [path, operations] of Object.entries((document.paths ?? {}) as JsonObject)) {
    if (path !== prefix && !path.startsWith(`${prefix}/`)) continue;
    const own = path.slice(prefix.length) || '/';
    paths[own] ??= withoutCrewParameter(structuredClone(operations) as JsonObject);
  }
  return { ...document, paths };
}

function withoutCrewParameter(operations: JsonObject): JsonObject {
  for (const operation of Object.values(operations) as JsonObject[]) {
    const parameters = operation.parameters as { in?: string; name?: string }[] | undefined;
    if (parameters === undefined) continue;
    const kept = parameters.filter((parameter) => !(parameter.in === 'path' && parameter.name === 'crew'));
    if (kept.length > 0) operation.parameters = kept;
    else delete operation.parameters;
  }
  return operations;
}

/** A crew's paths without those of parts it lacks (a crew served without schedules has no `/schedules`). */
function withoutLackedParts(base: JsonObject, crew: ServedCrew, parts: CrewPartRoutes): JsonObject {
  const paths = Object.entries(base.paths as JsonObject).filter(([path]) => {
    const part = parts.partAt(path);
    return part === undefined || crew[part] !== undefined;
  });
  return { ...base, paths: Object.fromEntries(paths) };
}
