import { z } from 'zod';
import { CrewdError } from '../../domain/errors.ts';
import type { CrewVersionListing } from '../../service/crew-version-source.ts';
import { callerOf } from '../bearer-auth.ts';
import { bearerSecurity } from './route-context.ts';
import type { PerRequest, ZodApp } from './route-context.ts';

const versionListSchema = z.object({
  served: z.number().int().describe('The version new kickoffs run on'),
  versions: z.array(
    z.object({
      version: z.number().int(),
      hash: z.string().describe("SHA-256 of the crew's files"),
      created_at: z.string().describe('ISO 8601'),
      served: z.boolean(),
    }),
  ),
});

/** `GET /versions`: the crew's versions, oldest first, and which one new kickoffs use (organization tokens). */
export function registerCrewVersionsRoute(app: ZodApp, versionsOf: PerRequest<CrewVersionListing>): void {
  app.get(
    '/versions',
    {
      schema: {
        summary: "The crew's versions and the one served (organization tokens)",
        security: bearerSecurity,
        response: { 200: versionListSchema },
      },
    },
    async (request) => {
      // Deployments are the operator's business, as metrics are: a user token sees no such page.
      if (callerOf(request).kind !== 'org') throw new CrewdError('NOT_FOUND', 'Route not found');
      const { served, versions: kept } = await versionsOf(request).list();
      return {
        served,
        versions: kept.map((record) => ({
          version: record.version,
          hash: record.hash,
          created_at: record.createdAt.toISOString(),
          served: record.version === served,
        })),
      };
    },
  );
}
