import type { ToolSourceStatus } from '../../tools/tool-source.ts';
import { CrewdError } from '../../domain/errors.ts';
import { isStoreUnavailable, StoreUnavailableError } from '../../store/store-unavailable.ts';
import { callerOf } from '../bearer-auth.ts';
import { healthSchema, readinessSchema } from '../response-schemas.ts';
import { bearerSecurity } from './route-context.ts';
import type { RouteContext, ZodApp } from './route-context.ts';

export interface OperationsContext extends Pick<RouteContext, 'metrics' | 'clock'> {
  /** Resolves when the store answers. */
  readonly ready: () => Promise<void>;
  readonly readyTimeoutMs: number;
  /** Whether each tool source can be called now. */
  readonly toolSources: () => readonly ToolSourceStatus[];
  /** The API description served at `/openapi.json`. */
  readonly apiDocument: () => unknown;
}

/** Health checks, Prometheus metrics and the OpenAPI document. */
export function registerOperationsRoutes(app: ZodApp, context: OperationsContext): void {
  const { metrics, ready, readyTimeoutMs } = context;
  // Probes come often and from one address: they must never be rate limited.
  const probe = { public: true, rateLimit: false } as const;

  app.get(
    '/health/live',
    { config: probe, schema: { summary: 'The process is up', response: { 200: healthSchema } } },
    () => ({ status: 'ok' }),
  );

  app.get(
    '/health/ready',
    {
      config: probe,
      schema: {
        summary:
          'The store answers and takes writes (503 saying why when it does not); which tool sources are up',
        response: { 200: readinessSchema },
      },
    },
    async () => {
      await withinTimeout(ready, readyTimeoutMs);
      const tools = context.toolSources().map(({ label, up, reason }) => ({
        source: label,
        up,
        ...(reason === undefined ? {} : { reason }),
      }));
      return { status: 'ok', tools };
    },
  );

  app.get(
    '/metrics',
    { schema: { summary: 'Prometheus metrics (organization tokens)', security: bearerSecurity } },
    async (request, reply) => {
      // Metrics describe the whole service, so they are for organization tokens; a user token sees no such page.
      if (callerOf(request).kind !== 'org') throw new CrewdError('NOT_FOUND', 'Route not found');
      const text = await metrics.render();
      return reply.type(metrics.contentType).send(text);
    },
  );

  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, context.apiDocument);
}

async function withinTimeout(check: () => Promise<void>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`readiness check took over ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([check(), timeout]);
  } catch (error) {
    // The answer says why (unreachable, busy, disk full or read-only), in words that name no address or path.
    throw isStoreUnavailable(error) ? error : new StoreUnavailableError('unreachable', error);
  } finally {
    clearTimeout(timer);
  }
}
