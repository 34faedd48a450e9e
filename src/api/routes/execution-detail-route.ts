import type { Execution } from '../../domain/execution.ts';
import type { Caller, ExecutionAccess } from '../../service/execution-service.ts';
import type { StoredExecutionEvent } from '../../store/store.ts';
import { callerOf } from '../bearer-auth.ts';
import { executionDetailSchema, toExecutionDetail } from '../execution-detail.ts';
import { executionIdParamsSchema } from '../request-schemas.ts';
import { bearerSecurity } from './route-context.ts';
import type { ExecutionRouteContext, ZodApp } from './route-context.ts';

/** `GET /executions/{id}`: one execution with its inputs, feedback and task timeline. */
export function registerExecutionDetailRoute(app: ZodApp, context: ExecutionRouteContext): void {
  const { serviceOf, clock } = context;
  app.get(
    '/executions/:id',
    {
      schema: {
        summary: 'One execution: its status, inputs, feedback given and the timeline of its task attempts',
        security: bearerSecurity,
        params: executionIdParamsSchema,
        response: { 200: executionDetailSchema },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const service = serviceOf(request);
      const execution = await service.get(request.params.id, caller);
      const events = await eventsUpTo(service, execution, caller);
      return toExecutionDetail(execution, service.crewOf(execution), events, clock());
    },
  );
}

/** The execution's logged events up to the snapshot just read; the stream would otherwise wait for new ones. */
async function eventsUpTo(
  service: ExecutionAccess,
  execution: Execution,
  caller: Caller,
): Promise<StoredExecutionEvent[]> {
  const events: StoredExecutionEvent[] = [];
  if (execution.lastEventSequence === 0) return events;
  const controller = new AbortController();
  const stream = await service.openEventStream(execution.id, caller, 0, controller.signal);
  try {
    for await (const event of stream) {
      events.push(event);
      if (event.sequence >= execution.lastEventSequence) break;
    }
  } finally {
    controller.abort();
  }
  return events;
}
