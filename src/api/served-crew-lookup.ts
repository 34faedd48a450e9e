import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CrewdError } from '../domain/errors.ts';
import { baseUrlOf, type ServedCrew } from './routes/served-crews-route.ts';
import type { ZodApp } from './routes/route-context.ts';

/** What a served crew may have or lack beside its executions; a crew without one has none of its routes. */
export type CrewPart = 'versions' | 'schedules' | 'triggers' | 'deployer';

declare module 'fastify' {
  interface FastifyRequest {
    /** The served crew a request under `/crews/{crew}` is for; null on every other route. */
    servedCrew: ServedCrew | null;
  }
  interface FastifyContextConfig {
    /** Under `/crews/{crew}`: the part of the crew the route answers with, absent for a crew without it. */
    crewPart?: CrewPart;
  }
}

/** Where every served crew's routes are registered, once for all of them: `/crews/{crew}/…`. */
export const servedCrewPrefix = '/crews/:crew';

function routeNotFound(): CrewdError {
  // As an unknown route answers (installErrorHandling's not-found handler).
  return new CrewdError('NOT_FOUND', 'Route not found');
}

/**
 * Finds the served crew a request under `/crews/{crew}` names, before anything else looks at the request: a name
 * this server does not serve, or a route of a part that crew lacks, answers 404 as an unknown route does, with no
 * token checked. Install it before the bearer check.
 */
export function installServedCrewLookup(app: FastifyInstance, crews: ReadonlyMap<string, ServedCrew>): void {
  app.decorateRequest('servedCrew', null);
  app.addHook('onRequest', (request, _reply, done) => {
    const name = (request.params as { crew?: string } | undefined)?.crew;
    if (name === undefined) {
      done();
      return;
    }
    const crew = crews.get(name);
    const part = request.routeOptions.config.crewPart;
    if (crew === undefined || (part !== undefined && crew[part] === undefined)) {
      done(routeNotFound());
      return;
    }
    request.servedCrew = crew;
    done();
  });
}

/** The crew a request under `/crews/{crew}` is for (`installServedCrewLookup` found it). */
export function servedCrewOf(request: FastifyRequest): ServedCrew {
  if (request.servedCrew === null) throw routeNotFound();
  return request.servedCrew;
}

/** A part of the request's served crew; the routes of a part the crew lacks answer 404. */
export function servedCrewPart<P extends CrewPart>(
  request: FastifyRequest,
  part: P,
): NonNullable<ServedCrew[P]> {
  const found = servedCrewOf(request)[part];
  if (found === undefined) throw routeNotFound();
  return found;
}

/**
 * The route a request is counted under in metrics: a served crew's routes under its own base URL, as
 * `/crews/research/kickoff`, so each crew's traffic shows apart; `unmatched` for a crew this server does not serve.
 */
export function routeLabelOf(request: FastifyRequest): string {
  const route = request.routeOptions.url;
  if (route === undefined) return 'unmatched';
  if (route !== servedCrewPrefix && !route.startsWith(`${servedCrewPrefix}/`)) return route;
  const crew = request.servedCrew;
  return crew === null ? 'unmatched' : `${baseUrlOf(crew.name)}${route.slice(servedCrewPrefix.length)}`;
}

/**
 * Marks the routes of each part of a crew registered through `register` under `/crews/{crew}`: they answer only for
 * crews that have that part (the lookup answers 404 for the others, as for an unknown route, before the token is
 * checked), and are left out of those crews' API descriptions.
 */
export class CrewPartRoutes {
  /** The part each marked route's path belongs to, as an OpenAPI path relative to the crew's base URL. */
  readonly #parts = new Map<string, CrewPart>();
  #current: CrewPart | undefined;

  constructor(scope: ZodApp) {
    scope.addHook('onRoute', (route) => {
      const part = this.#current;
      if (part === undefined) return;
      route.config = { ...route.config, crewPart: part };
      this.#parts.set(route.routePath.replace(/:(\w+)/g, '{$1}'), part);
    });
  }

  readonly register = (part: CrewPart, register: () => void): void => {
    this.#current = part;
    try {
      register();
    } finally {
      this.#current = undefined;
    }
  };

  /** The part whose routes answer at `path` (an OpenAPI path relative to the crew's base URL), if any. */
  partAt(path: string): CrewPart | undefined {
    return this.#parts.get(path);
  }
}
