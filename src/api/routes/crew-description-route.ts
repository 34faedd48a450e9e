import { callerOf } from '../bearer-auth.ts';
import { crewDescriptionSchema, describeCrew } from '../crew-description.ts';
import { bearerSecurity } from './route-context.ts';
import type { RouteContext, ZodApp } from './route-context.ts';

/** `GET /crew`: the crew's name, process, agents, tasks and inputs (CONTRACT §3.6). */
export function registerCrewDescriptionRoute(app: ZodApp, context: RouteContext): void {
  // Described once per version served.
  const descriptions = new WeakMap<object, ReturnType<typeof describeCrew>>();
  app.get(
    '/crew',
    {
      schema: {
        summary: 'The crew: name, process, agents, tasks and inputs',
        security: bearerSecurity,
        response: { 200: crewDescriptionSchema },
      },
    },
    (request) => {
      callerOf(request);
      const crew = context.serviceOf(request).crew;
      let description = descriptions.get(crew);
      if (description === undefined) {
        description = describeCrew(crew);
        descriptions.set(crew, description);
      }
      return description;
    },
  );
}
