import { isCrewdError } from '../../domain/errors.ts';
import { bearerToken, callerOf } from '../bearer-auth.ts';
import type { Authenticate } from '../bearer-auth.ts';
import { toErrorResponse } from '../error-handler.ts';
import { eventsQuerySchema, executionIdParamsSchema } from '../request-schemas.ts';
import { formatComment, pipeEvents, resumePoint } from '../server-sent-events.ts';
import { watchStreamToken } from '../stream-token-watch.ts';
import type { UnavailableLog } from '../unavailable-log.ts';
import { bearerSecurity } from './route-context.ts';
import type { ExecutionRouteContext, ZodApp } from './route-context.ts';

export interface EventStreamContext extends ExecutionRouteContext {
  readonly heartbeatMs: number;
  /** Checks the stream's token again, so a revoked token loses the streams it opened. */
  readonly authenticate: Authenticate;
  /** How often an idle stream's token is checked again. */
  readonly tokenRecheckMs: number;
  /** Open streams, aborted with `serverClosing` when the server closes so shutdown does not wait for clients. */
  readonly openStreams: Set<AbortController>;
  /** Sums up streams that end because the store is unavailable, as the error handler does for 503 answers. */
  readonly unavailable: UnavailableLog;
}

/** The reason open streams are aborted with when the server closes. */
export const serverClosing = new Error('the server is closing');
/** The reason a stream is aborted with when its client goes: one made beforehand costs nothing per stream. */
const clientGone = new Error('the client closed the stream');

const route = '/executions/:id/events';
/**
 * How long a new stream's headers wait for its first events, to leave with them in one write: a client opens the
 * stream right after its kickoff, a few milliseconds before the execution's first events.
 */
const openingWaitMs = 50;

/** `GET /executions/{id}/events`: the execution's event log as Server-Sent Events, live until it finishes. */
export function registerEventStreamRoute(app: ZodApp, context: EventStreamContext): void {
  const { serviceOf, metrics, heartbeatMs, openStreams, unavailable, authenticate, tokenRecheckMs } = context;

  app.get(
    route,
    {
      schema: {
        summary: 'Events of an execution as Server-Sent Events; resumable with Last-Event-ID',
        security: bearerSecurity,
        params: executionIdParamsSchema,
        querystring: eventsQuerySchema,
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const after = resumePoint(request.headers['last-event-id'], request.query.last_event_id);
      const controller = new AbortController();
      // Unknown and foreign executions answer 404 like every other route, before the stream starts.
      const events = await serviceOf(request).openEventStream(
        request.params.id,
        caller,
        after,
        controller.signal,
      );

      reply.hijack();
      const response = reply.raw;
      const headers = {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        // Tells reverse proxies such as nginx not to buffer the stream.
        'x-accel-buffering': 'no',
      };
      if (request.method === 'HEAD') {
        // The headers a GET would get, at once: a HEAD has no body to stream, so nothing waits for the end.
        response.writeHead(200, headers).end();
        metrics.observeHttpRequest('HEAD', route, 200, reply.elapsedTime / 1000);
        return;
      }
      openStreams.add(controller);
      response.on('close', () => controller.abort(clientGone));
      const token = watchStreamToken({
        authenticate,
        secret: bearerToken(request.headers.authorization) ?? '',
        intervalMs: tokenRecheckMs,
        onRevoked: (error) => controller.abort(error),
      });
      response.writeHead(200, headers);
      try {
        await pipeEvents(response, events, {
          heartbeatMs,
          signal: controller.signal,
          beforeBatch: token.check,
          opening: formatComment('stream open'),
          openingWaitMs,
        });
        // A revoked token aborts the stream with its 401, said as the stream's last word.
        if (isCrewdError(controller.signal.reason)) throw controller.signal.reason;
      } catch (error) {
        const revoked = isCrewdError(controller.signal.reason) ? controller.signal.reason : null;
        if (!controller.signal.aborted || revoked !== null) {
          const failure = toErrorResponse(revoked ?? error);
          if (failure.status === 503) unavailable.record(error, route);
          else if (failure.status >= 500) request.log.error({ err: error }, 'event stream failed');
          response.write(`event: error\ndata: ${JSON.stringify(failure.body)}\n\n`);
        }
      } finally {
        token.stop();
        openStreams.delete(controller);
        response.end();
        // The connection would otherwise stay open as an idle keep-alive that a closing server waits for.
        if (controller.signal.reason === serverClosing) response.socket?.end();
        metrics.observeHttpRequest('GET', route, 200, reply.elapsedTime / 1000);
      }
    },
  );
}
