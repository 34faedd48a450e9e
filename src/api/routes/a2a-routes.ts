import type { FastifyReply, FastifyRequest } from 'fastify';
import { a2aRpcPath } from '../a2a-agent-card.ts';
import type { A2aRouteContext, OpenA2aRequests } from './a2a-handlers.ts';
import type { ZodApp } from './route-context.ts';

export type { A2aRouteContext } from './a2a-handlers.ts';

const agentCardPath = '/.well-known/agent-card.json';

type Handler = (request: FastifyRequest, reply: FastifyReply) => unknown;

/**
 * The crew as an A2A agent (CONTRACT §3.7): its public agent card, and JSON-RPC at `/a2a` for protocol 0.3 (no
 * `A2A-Version` header, or `0.3`) and 1.0 (`A2A-Version: 1.0`). Paths are relative to the crew's base URL. The
 * handlers and the A2A SDK load with the first A2A request, so a server whose clients never ask starts faster.
 */
export function registerA2aRoutes(app: ZodApp, context: A2aRouteContext): void {
  const openRequests: OpenA2aRequests = new Set();
  app.addHook('preClose', (done) => {
    for (const request of openRequests) request.abort();
    done();
  });
  let loading: Promise<{ card: Handler; rpc: Handler }> | undefined;
  const handlers = () =>
    (loading ??= import('./a2a-handlers.ts').then((module) => ({
      card: module.agentCardHandler(context),
      rpc: module.rpcHandler(context, openRequests),
    })));

  app.get(
    agentCardPath,
    {
      config: { public: true },
      // The A2A routes are described by the agent card and the A2A specification, not by /openapi.json.
      schema: { hide: true },
    },
    async (request, reply) => (await handlers()).card(request, reply),
  );

  app.post(a2aRpcPath, { schema: { hide: true } }, async (request, reply) =>
    (await handlers()).rpc(request, reply),
  );
}
