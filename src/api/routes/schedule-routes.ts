import { callerOf } from '../bearer-auth.ts';
import { kickoffWebhooks } from '../kickoff-webhooks.ts';
import { kickoffResponseSchema } from '../response-schemas.ts';
import {
  scheduleBodySchema,
  scheduleIdParamsSchema,
  scheduleListSchema,
  scheduleViewSchema,
  toScheduleView,
} from '../schedule-schemas.ts';
import type { Schedule } from '../../domain/schedule.ts';
import type { ScheduleService } from '../../service/schedule-service.ts';
import { cronTimes } from '../../service/schedule-times.ts';
import { bearerSecurity } from './route-context.ts';
import type { PerRequest, ZodApp } from './route-context.ts';

/** `{base_url}/schedules`: a crew's kickoffs on a cron expression; user tokens see and change only their own. */
export function registerScheduleRoutes(
  app: ZodApp,
  context: { readonly schedulesOf: PerRequest<ScheduleService>; readonly clock: () => Date },
): void {
  const { schedulesOf, clock } = context;
  const view = (schedule: Schedule) =>
    toScheduleView(schedule, cronTimes(schedule.cron, schedule.timezone), clock());
  const byId = { security: bearerSecurity, params: scheduleIdParamsSchema };

  app.post(
    '/schedules',
    {
      schema: {
        summary: 'Start the crew on a schedule',
        security: bearerSecurity,
        body: scheduleBodySchema,
        response: { 201: scheduleViewSchema },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const schedule = await schedulesOf(request).create({
        name: body.name ?? null,
        cron: body.cron,
        timezone: body.timezone,
        inputs: body.inputs,
        meta: body.meta ?? null,
        webhooks: kickoffWebhooks(body),
        caller: callerOf(request),
      });
      return reply.code(201).send(view(schedule));
    },
  );

  app.get(
    '/schedules',
    {
      schema: { summary: 'List schedules', security: bearerSecurity, response: { 200: scheduleListSchema } },
    },
    async (request) => ({ schedules: (await schedulesOf(request).list(callerOf(request))).map(view) }),
  );

  app.get(
    '/schedules/:id',
    { schema: { summary: 'One schedule', ...byId, response: { 200: scheduleViewSchema } } },
    async (request) => view(await schedulesOf(request).get(request.params.id, callerOf(request))),
  );

  for (const [action, paused] of [
    ['pause', true],
    ['resume', false],
  ] as const) {
    app.post(
      `/schedules/:id/${action}`,
      {
        schema: {
          summary: `${action === 'pause' ? 'Pause' : 'Resume'} a schedule`,
          ...byId,
          response: { 200: scheduleViewSchema },
        },
      },
      async (request) =>
        view(await schedulesOf(request).setPaused(request.params.id, paused, callerOf(request))),
    );
  }

  app.post(
    '/schedules/:id/run',
    {
      schema: {
        summary: "Start one of a schedule's executions now",
        ...byId,
        response: { 200: kickoffResponseSchema },
      },
    },
    async (request) => {
      const { kickoffId } = await schedulesOf(request).runNow(request.params.id, callerOf(request));
      return { kickoff_id: kickoffId };
    },
  );

  app.delete(
    '/schedules/:id',
    { schema: { summary: 'Delete a schedule', ...byId } },
    async (request, reply) => {
      await schedulesOf(request).delete(request.params.id, callerOf(request));
      return reply.code(204).send();
    },
  );
}
