import { z } from 'zod';
import { reachesCrew } from '../../domain/crew-name.ts';
import type { CrewDeployer, CrewVersionListing } from '../../service/crew-version-source.ts';
import type { ExecutionService } from '../../service/execution-service.ts';
import type { ScheduleService } from '../../service/schedule-service.ts';
import type { TriggerService } from '../../service/trigger-service.ts';
import { callerOf } from '../bearer-auth.ts';
import { bearerSecurity } from './route-context.ts';
import type { ZodApp } from './route-context.ts';

/**
 * Something a server serves at a base URL of its own, `/crews/<name>`: a crew or a flow, each answering the same
 * interface there.
 */
export interface ServedCrew {
  readonly kind: 'crew' | 'flow';
  readonly name: string;
  readonly service: ExecutionService;
  /** Its versions (`GET {base_url}/versions`). */
  readonly versions?: CrewVersionListing;
  /** Takes `crewd deploy` (`POST {base_url}/deploy`); absent unless deploying is enabled. */
  readonly deployer?: CrewDeployer;
  /** Its schedules (`{base_url}/schedules`); those routes are absent without them. */
  readonly schedules?: ScheduleService;
  /** Other systems' events that start it (`{base_url}/triggers/<name>`); that route is absent without them. */
  readonly triggers?: TriggerService;
}

/** The base URL of a served crew, as a path on the server. */
export function baseUrlOf(name: string): string {
  return `/crews/${name}`;
}

export const servedListSchema = z.object({
  crews: z.array(
    z.object({
      name: z.string(),
      kind: z.enum(['crew', 'flow']).describe('A crew (agents and tasks) or a flow (crewai.flow/v1)'),
      base_url: z.string().describe('Path of its base URL on this server: {base_url}/kickoff, /status/{id}…'),
      inputs: z.array(z.string()),
    }),
  ),
});

/** `GET /crews`: what this server serves, each with its base URL; a token limited to some crews sees those. */
export function registerServedCrewsRoute(app: ZodApp, served: readonly ServedCrew[]): void {
  app.get(
    '/crews',
    {
      schema: {
        summary: 'The crews and flows this server serves, with their base URLs and inputs',
        security: bearerSecurity,
        response: { 200: servedListSchema },
      },
    },
    (request) => {
      const caller = callerOf(request);
      return {
        crews: served
          .filter((crew) => reachesCrew(caller.crews, crew.name))
          .map((crew) => ({
            name: crew.name,
            kind: crew.kind,
            base_url: baseUrlOf(crew.name),
            inputs: [...crew.service.crew.requiredInputs],
          })),
      };
    },
  );
}
