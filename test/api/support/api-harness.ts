import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../../src/api/build-server.ts';
import type { ServerDeps } from '../../../src/api/build-server.ts';
import type { ServedCrew } from '../../../src/api/routes/served-crews-route.ts';
import { Metrics } from '../../../src/observability/metrics.ts';
import type { Caller } from '../../../src/service/execution-service.ts';
import { InMemoryExecutionService } from './in-memory-execution-service.ts';

export const orgToken = 'org-secret-0123456789';
export const aliceToken = 'alice-secret-0123456789';
export const bobToken = 'bob-secret-0123456789';

export const orgCaller: Caller = { tokenId: 'org-token', kind: 'org', userId: null };
export const aliceCaller: Caller = { tokenId: 'alice-token', kind: 'user', userId: 'alice' };
export const bobCaller: Caller = { tokenId: 'bob-token', kind: 'user', userId: 'bob' };

const callersBySecret = new Map<string, Caller>([
  [orgToken, orgCaller],
  [aliceToken, aliceCaller],
  [bobToken, bobCaller],
]);

export interface RequestOptions {
  readonly method?: string;
  /** Sent as JSON unless it is already a string. */
  readonly body?: unknown;
  /** Bearer token; null sends no Authorization header. Defaults to the organization token. */
  readonly token?: string | null;
  readonly headers?: Record<string, string>;
  readonly signal?: AbortSignal;
}

export interface ApiHarness {
  readonly url: string;
  readonly server: FastifyInstance;
  readonly service: InMemoryExecutionService;
  readonly metrics: Metrics;
  request(path: string, options?: RequestOptions): Promise<Response>;
  close(): Promise<void>;
}

/** A real server on 127.0.0.1 over an in-memory execution service. */
export async function startApi(overrides: Partial<ServerDeps> = {}): Promise<ApiHarness> {
  const deps = harnessDeps(overrides);
  return listen(await buildServer(deps), deps);
}

/**
 * A real server on 127.0.0.1 of several crews, each under `/crews/<name>`, as `crewd serve a b` serves them; the
 * root answers for the executions of the first (`service`).
 */
export async function startCrewsApi(
  crews: readonly ServedCrew[],
  overrides: Partial<ServerDeps> = {},
): Promise<ApiHarness> {
  const deps = harnessDeps({ ...overrides, service: crews[0]!.service });
  const { service, ...shared } = deps;
  return listen(await buildServer({ ...shared, everyCrew: service, crews }), deps);
}

function harnessDeps(
  overrides: Partial<ServerDeps>,
): ServerDeps & { service: InMemoryExecutionService; metrics: Metrics } {
  const service =
    overrides.service instanceof InMemoryExecutionService
      ? overrides.service
      : new InMemoryExecutionService();
  return {
    authenticate: (secret) => Promise.resolve(callersBySecret.get(secret) ?? null),
    rateLimitPerMinute: 0,
    ready: () => Promise.resolve(),
    clock: () => new Date('2025-01-01T10:05:00.000Z'),
    ...overrides,
    service,
    metrics: overrides.metrics ?? new Metrics(),
  };
}

async function listen(
  server: FastifyInstance,
  { service, metrics }: { service: InMemoryExecutionService; metrics: Metrics },
): Promise<ApiHarness> {
  await server.listen({ port: 0, host: '127.0.0.1' });
  const address = server.server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no port');
  const url = `http://127.0.0.1:${address.port}`;
  return {
    url,
    server,
    service,
    metrics,
    request: (path, options = {}) => send(url, path, options),
    close: () => server.close(),
  };
}

function send(url: string, path: string, options: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? orgToken : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  return fetch(`${url}${path}`, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    ...(body === undefined ? {} : { body }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}

/** A response body as JSON, loosely typed as JSON.parse gives it, so tests can look into it. */
export async function readJson(response: Response): Promise<ReturnType<typeof JSON.parse>> {
  return JSON.parse(await response.text());
}
