import { z } from 'zod';
import type { Caller } from '../../service/execution-service.ts';
import type { TriggerService } from '../../service/trigger-service.ts';
import { authenticateOrUnavailable, bearerToken } from '../bearer-auth.ts';
import type { Authenticate } from '../bearer-auth.ts';
import { kickoffResponseSchema } from '../response-schemas.ts';
import type { PerRequest, ZodApp } from './route-context.ts';

const header = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value.join(',') : value;

/**
 * `{base_url}/triggers/<name>`: another system's event starts the crew, its JSON body as `crewai_trigger_payload`.
 * Public to the bearer check because a signed request needs no token; the trigger service verifies one or the other.
 */
export function registerTriggerRoutes(
  app: ZodApp,
  context: { readonly triggersOf: PerRequest<TriggerService>; readonly authenticate: Authenticate },
): void {
  app.post(
    '/triggers/:name',
    {
      config: { public: true },
      schema: {
        summary: 'Start the crew from an event (signed with Standard Webhooks, or with a bearer token)',
        params: z.object({ name: z.string().min(1).max(200) }),
        response: { 200: kickoffResponseSchema },
      },
    },
    async (request) => {
      const token = bearerToken(request.headers.authorization);
      const caller: Caller | null =
        token === null ? null : await authenticateOrUnavailable(context.authenticate, token);
      const { kickoffId } = await context.triggersOf(request).fire({
        name: request.params.name,
        rawBody: request.rawBody ?? '',
        payload: request.body,
        webhookId: header(request.headers['webhook-id']),
        webhookTimestamp: header(request.headers['webhook-timestamp']),
        webhookSignature: header(request.headers['webhook-signature']),
        caller,
      });
      return { kickoff_id: kickoffId };
    },
  );
}
