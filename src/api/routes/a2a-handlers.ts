// The A2A routes' handlers, with the A2A SDK they need; a2a-routes.ts loads this module on the first A2A request.
import { A2A_VERSION_HEADER, AgentCard, formatSSEErrorEvent, formatSSEEvent } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { JsonRpcTransportHandler, ServerCallContext, validateVersion } from '@a2a-js/sdk/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { a2aAgentCard, legacyAgentCardJson } from '../a2a-agent-card.ts';
import { CrewA2aHandler } from '../a2a-request-handler.ts';
import { bearerToken, callerOf } from '../bearer-auth.ts';
import type { Authenticate } from '../bearer-auth.ts';
import { isCrewdError } from '../../domain/errors.ts';
import { routeLabelOf } from '../served-crew-lookup.ts';
import { watchStreamToken } from '../stream-token-watch.ts';
import type { RouteContext } from './route-context.ts';

const legacyProtocol = '0.3';
/** JSON-RPC's code for a request the server will not carry out. */
const invalidRequestCode = -32600;
/** As `GET /executions/{id}/events` does by default. */
const heartbeatMs = 15_000;

export interface A2aRouteContext extends RouteContext {
  /** Checks the token of a waiting send or an open stream again, so a revoked token loses them within a second. */
  readonly authenticate: Authenticate;
  readonly tokenRecheckMs: number;
}

/** The requests in flight, ended together when the server closes. */
export type OpenA2aRequests = Set<AbortController>;

/** Absent or `0.3`: the protocol of the hosted crewAI platform and of most A2A clients today. */
function requestedVersion(request: FastifyRequest): string {
  const header = request.headers[A2A_VERSION_HEADER.toLowerCase()];
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  return value === undefined || value === '' ? legacyProtocol : value;
}

function isLegacy(version: string): boolean {
  return version === legacyProtocol || version.startsWith('0.');
}

/** The crew's base URL as the client reached it: the card's URLs must point where the crew is served. */
function baseUrlOf(request: FastifyRequest, basePath: string): string {
  return `${request.protocol}://${request.host}${basePath}`;
}

/** `GET /.well-known/agent-card.json`: the crew's public agent card. */
export function agentCardHandler(context: A2aRouteContext) {
  const { serviceOf, basePathOf } = context;
  return (request: FastifyRequest, reply: FastifyReply) => {
    const card = a2aAgentCard(serviceOf(request).crew, baseUrlOf(request, basePathOf(request)));
    void reply.header('vary', A2A_VERSION_HEADER);
    return isLegacy(requestedVersion(request)) ? legacyAgentCardJson(card) : AgentCard.toJSON(card);
  };
}

/** `POST /a2a`: JSON-RPC, answered whole or as an event stream. */
export function rpcHandler(context: A2aRouteContext, openRequests: OpenA2aRequests) {
  const { serviceOf, basePathOf, metrics } = context;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = callerOf(request);
    const version = requestedVersion(request);
    const legacy = isLegacy(version);
    const controller = new AbortController();
    // A closing server ends waits and streams at once: the task goes on, and the client can follow it again.
    openRequests.add(controller);
    reply.raw.on('close', () => {
      controller.abort();
      openRequests.delete(controller);
    });
    // A blocking send answers when the task settles, which may be long after the connection last moved.
    request.raw.socket.setTimeout(0);
    const token = watchStreamToken({
      authenticate: context.authenticate,
      secret: bearerToken(request.headers.authorization) ?? '',
      intervalMs: context.tokenRecheckMs,
      onRevoked: (error) => controller.abort(error),
    });
    reply.raw.on('close', () => token.stop());
    /** The 401 a revoked token ends the request with, once it has been revoked. */
    const revoked = () => (isCrewdError(controller.signal.reason) ? controller.signal.reason : null);
    const service = serviceOf(request);
    const card = a2aAgentCard(service.crew, baseUrlOf(request, basePathOf(request)));
    const handler = new CrewA2aHandler({ service, card, caller, signal: controller.signal });
    const callContext = new ServerCallContext({ requestedVersion: version });
    const transport = legacy
      ? new LegacyJsonRpcTransportHandler(handler)
      : new JsonRpcTransportHandler(handler);
    const body = legacy ? blockingByDefault(request.body) : ((request.body ?? {}) as Record<string, unknown>);
    const id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
    const toError = (error: unknown) =>
      legacy
        ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(error)
        : JsonRpcTransportHandler.mapToJSONRPCError(error);
    try {
      validateVersion(legacy ? legacyProtocol : version, card, 'JSONRPC');
    } catch (error) {
      return { jsonrpc: '2.0', id, error: toError(error) };
    }
    const answer = await transport.handle(body, callContext);
    if (!(Symbol.asyncIterator in answer)) {
      token.stop();
      const refusal = revoked();
      if (refusal !== null) throw refusal;
      return answer;
    }
    const events = answer[Symbol.asyncIterator]();
    // What fails before the first event (an unknown task, a missing input) is a plain JSON-RPC error answer.
    let first: IteratorResult<unknown>;
    try {
      first = await events.next();
    } catch (error) {
      token.stop();
      return { jsonrpc: '2.0', id, error: toError(error) };
    }

    reply.hijack();
    const response = reply.raw;
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
    // Comment lines keep an idle stream moving, so proxies and the server's own idle limit leave it open.
    const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), heartbeatMs);
    try {
      for (let next = first; next.done !== true; next = await events.next()) {
        await write(response, formatSSEEvent(next.value), controller.signal);
      }
      const refusal = revoked();
      if (refusal !== null) throw refusal;
    } catch (error) {
      const refusal = revoked();
      if (refusal !== null) {
        // The stream's last word, as `GET /executions/{id}/events` says it: its token no longer authenticates.
        const unauthorized = { code: invalidRequestCode, message: refusal.message };
        response.write(formatSSEErrorEvent({ jsonrpc: '2.0', id, error: unauthorized }));
      } else if (!controller.signal.aborted) {
        response.write(formatSSEErrorEvent({ jsonrpc: '2.0', id, error: toError(error) }));
      }
    } finally {
      token.stop();
      clearInterval(heartbeat);
      await events.return?.(undefined);
      response.end();
      observe(metrics, reply);
    }
    return reply;
  };
}

/**
 * A 0.3 `message/send` without `configuration.blocking` waits for the task, as 0.3 servers (the hosted platform's
 * included) do; the SDK's 0.3 translation would otherwise answer at once with a submitted task.
 */
function blockingByDefault(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return {};
  const rpc = body as Record<string, unknown>;
  const params = rpc.params;
  if (rpc.method !== 'message/send' || typeof params !== 'object' || params === null) return rpc;
  const { configuration } = params as { configuration?: unknown };
  const given = typeof configuration === 'object' && configuration !== null ? configuration : {};
  if ('blocking' in given) return rpc;
  return { ...rpc, params: { ...params, configuration: { ...given, blocking: true } } };
}

/** Writes a chunk, waiting for the socket to drain so a slow client cannot grow memory. */
async function write(response: ServerResponse, chunk: string, signal: AbortSignal): Promise<void> {
  if (!response.write(chunk)) await once(response, 'drain', { signal });
}

function observe(metrics: RouteContext['metrics'], reply: FastifyReply): void {
  metrics.observeHttpRequest('POST', routeLabelOf(reply.request), 200, reply.elapsedTime / 1000);
}
