import type { FastifyReply, FastifyRequest } from 'fastify';
import { CrewdError } from '../../domain/errors.ts';
import { callerOf } from '../bearer-auth.ts';
import { checkCredentials, checkStreamCredentials, kickoffWebhooks } from '../kickoff-webhooks.ts';
import {
  kickoffBodySchema,
  kickoffIdParamsSchema,
  resumeBodySchema,
  toBudget,
  toReviewDeadline,
} from '../request-schemas.ts';
import {
  inputsResponseSchema,
  kickoffResponseSchema,
  resumeResponseSchema,
  statusViewSchema,
} from '../response-schemas.ts';
import { StatusBodies } from '../status-bodies.ts';
import { toStatusView } from '../status-view.ts';
import { bearerSecurity } from './route-context.ts';
import type { ExecutionAccess } from '../../service/execution-service.ts';
import type { ExecutionRouteContext, RouteContext, ZodApp } from './route-context.ts';

const maxIdempotencyKeyLength = 255;

/** `GET /`: liveness text. */
export function registerHealthyRoute(app: ZodApp): void {
  app.get(
    '/',
    { config: { public: true, rateLimit: false }, schema: { summary: 'Liveness text for simple checks' } },
    async (_request, reply) => reply.type('text/plain; charset=utf-8').send('Healthy'),
  );
}

/** `GET /inputs` and `POST /kickoff`: one crew's. */
export function registerKickoffRoutes(app: ZodApp, context: RouteContext): void {
  const { serviceOf } = context;

  app.get(
    '/inputs',
    {
      schema: {
        summary: 'The inputs the crew expects',
        security: bearerSecurity,
        response: { 200: inputsResponseSchema },
      },
    },
    (request) => {
      callerOf(request);
      return { inputs: [...serviceOf(request).crew.requiredInputs] };
    },
  );

  app.post(
    '/kickoff',
    {
      schema: {
        summary: 'Start an execution',
        security: bearerSecurity,
        body: kickoffBodySchema,
        response: { 200: kickoffResponseSchema },
      },
    },
    async (request) => {
      const body = request.body;
      const { kickoffId } = await serviceOf(request).kickoff({
        inputs: body.inputs,
        meta: body.meta ?? null,
        webhooks: kickoffWebhooks(body),
        idempotencyKey: idempotencyKey(request),
        caller: callerOf(request),
        reviewDeadline: toReviewDeadline(body.humanInputDeadline),
        budget: toBudget(body.budget),
        restoreFromStateId: body.restoreFromStateId ?? body.restore_from_state_id,
      });
      return { kickoff_id: kickoffId };
    },
  );
}

/** Status, resume and cancel of executions already started: under a crew, or at the root for every crew. */
export function registerExecutionStateRoutes(app: ZodApp, context: ExecutionRouteContext): void {
  const { serviceOf, clock } = context;
  const statusRoute = {
    schema: {
      summary: 'Status and result of an execution',
      security: bearerSecurity,
      params: kickoffIdParamsSchema,
      response: { 200: statusViewSchema },
    },
  };
  // Each crew's bodies are kept beside its own executions.
  const bodies = new WeakMap<ExecutionAccess, StatusBodies>();
  const bodiesOf = (service: ExecutionAccess): StatusBodies => {
    let kept = bodies.get(service);
    if (kept === undefined) {
      kept = new StatusBodies((execution) => service.crewOf(execution));
      bodies.set(service, kept);
    }
    return kept;
  };
  const status = async (
    request: FastifyRequest<{ Params: { kickoffId: string } }>,
    reply: FastifyReply,
  ): Promise<undefined> => {
    const service = serviceOf(request);
    const execution = await service.get(request.params.kickoffId, callerOf(request));
    void reply.type('application/json; charset=utf-8').send(bodiesOf(service).body(execution, clock()));
    return undefined;
  };
  app.get('/status/:kickoffId', statusRoute, status);
  app.get('/:kickoffId/status', statusRoute, status);

  app.post(
    '/resume',
    {
      schema: {
        summary: 'Give feedback to an execution waiting for human input',
        security: bearerSecurity,
        body: resumeBodySchema,
        response: { 200: resumeResponseSchema },
      },
    },
    async (request) => {
      checkCredentials(request.body.humanInput);
      checkStreamCredentials(request.body.events);
      const result = await serviceOf(request).resume({ ...request.body, caller: callerOf(request) });
      return { status: result.status, message: result.message };
    },
  );

  const cancel = async (request: FastifyRequest<{ Params: { kickoffId: string } }>) => {
    const service = serviceOf(request);
    const execution = await service.cancel(request.params.kickoffId, callerOf(request));
    return toStatusView(execution, service.crewOf(execution), clock());
  };
  const cancelSchema = {
    security: bearerSecurity,
    params: kickoffIdParamsSchema,
    response: { 200: statusViewSchema },
  };
  app.post(
    '/cancel/:kickoffId',
    {
      schema: {
        summary: 'Cancel an execution (it becomes REVOKED); finished ones stay as they are',
        ...cancelSchema,
      },
    },
    cancel,
  );
  // The hosted platform's name for cancel.
  app.post(
    '/stop/:kickoffId',
    { schema: { summary: "Cancel an execution, under the hosted platform's name for it", ...cancelSchema } },
    cancel,
  );
}

function idempotencyKey(request: FastifyRequest): string | null {
  const value = request.headers['idempotency-key'];
  if (value === undefined) return null;
  const key = Array.isArray(value) ? value.join(', ') : value;
  if (key.length === 0 || key.length > maxIdempotencyKeyLength || !/^[\x20-\x7e]+$/.test(key)) {
    throw new CrewdError(
      'VALIDATION_ERROR',
      `Idempotency-Key must be 1 to ${maxIdempotencyKeyLength} printable ASCII characters`,
    );
  }
  return key;
}
