import { callerOf } from '../bearer-auth.ts';
import { toDeliveryView } from '../delivery-view.ts';
import { executionIdParamsSchema, listQuerySchema } from '../request-schemas.ts';
import { deliveryListSchema, executionListSchema } from '../response-schemas.ts';
import { toStatusView } from '../status-view.ts';
import { bearerSecurity } from './route-context.ts';
import type { ExecutionRouteContext, ZodApp } from './route-context.ts';

/** Listing executions and their webhook deliveries (CONTRACT §3.6). User tokens see only their own. */
export function registerExecutionRoutes(app: ZodApp, context: ExecutionRouteContext): void {
  const { serviceOf, clock } = context;

  app.get(
    '/executions',
    {
      schema: {
        summary: 'Executions, newest first, in pages',
        security: bearerSecurity,
        querystring: listQuerySchema,
        response: { 200: executionListSchema },
      },
    },
    async (request) => {
      const { state, limit, cursor } = request.query;
      const service = serviceOf(request);
      const page = await service.list({
        limit,
        caller: callerOf(request),
        ...(state === undefined ? {} : { state }),
        ...(cursor === undefined ? {} : { cursor }),
      });
      const now = clock();
      return {
        items: page.items.map((execution) => toStatusView(execution, service.crewOf(execution), now)),
        next_cursor: page.nextCursor,
      };
    },
  );

  app.get(
    '/executions/:id/deliveries',
    {
      schema: {
        summary: 'Webhook messages of an execution with every delivery attempt',
        security: bearerSecurity,
        params: executionIdParamsSchema,
        response: { 200: deliveryListSchema },
      },
    },
    async (request) => {
      const records = await serviceOf(request).deliveries(request.params.id, callerOf(request));
      return { items: records.map(toDeliveryView) };
    },
  );
}
