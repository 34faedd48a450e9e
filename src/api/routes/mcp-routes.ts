import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { bearerToken, callerOf } from '../bearer-auth.ts';
import type { Authenticate } from '../bearer-auth.ts';
import { routeLabelOf } from '../served-crew-lookup.ts';
import type { createCrewMcpServer, CrewMcpShared } from '../mcp/crew-mcp-server.ts';
import { toWebRequest, writeWebResponse } from '../mcp/web-response-writer.ts';
import { defaultTokenRecheckMs, watchStreamToken } from '../stream-token-watch.ts';
import type { RouteContext, ZodApp } from './route-context.ts';

export interface McpRouteContext extends RouteContext {
  /** Checks a waiting call's token again, so a revoked token loses its waits as fast as its streams. */
  readonly authenticate: Authenticate;
  /** How often a waiting call's token is checked again (default as for event streams). */
  readonly tokenRecheckMs?: number;
}

const path = '/mcp';
/** How long a tool call's response headers may wait for its first message (see `writeWebResponse`). */
const headerDelayMs = 1000;

/** The MCP SDK's server side, loaded by the first MCP request: a server most of whose clients never ask starts faster. */
interface McpProtocol {
  readonly createServer: typeof createCrewMcpServer;
  readonly shared: CrewMcpShared;
  readonly Transport: typeof WebStandardStreamableHTTPServerTransport;
}

async function loadMcpProtocol(): Promise<McpProtocol> {
  const [server, transport] = await Promise.all([
    import('../mcp/crew-mcp-server.ts'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
  ]);
  return {
    createServer: server.createCrewMcpServer,
    shared: server.createCrewMcpShared(),
    Transport: transport.WebStandardStreamableHTTPServerTransport,
  };
}

/**
 * `{base_url}/mcp`: the crew as an MCP server over Streamable HTTP (CONTRACT §3.7), behind the same bearer tokens
 * as every route. Paths are relative, so the module serves a crew at the root or under a prefix alike.
 *
 * Stateless: every POST gets a fresh server and transport, with no MCP session to keep. What a client follows lives
 * in the store under an execution id, so any crewd process behind a load balancer answers any request, each request
 * is authenticated on its own (a revoked token stops at the next call), and a restart loses nothing. Progress goes
 * out on the tool call's own response stream, so the standalone GET stream a session would offer is not needed.
 */
export function registerMcpRoutes(app: ZodApp, context: McpRouteContext): void {
  const { serviceOf, clock, metrics, authenticate } = context;
  const tokenRecheckMs = context.tokenRecheckMs ?? defaultTokenRecheckMs;
  let protocol: Promise<McpProtocol> | undefined;
  // Ends waiting tool calls when the server closes, so shutdown does not wait out their bound.
  const closing = new AbortController();
  app.addHook('preClose', (done) => {
    closing.abort();
    done();
  });

  app.post(
    path,
    { schema: { summary: 'MCP server (Streamable HTTP)', hide: true } },
    async (request, reply) => {
      const caller = callerOf(request);
      const { createServer, shared, Transport } = await (protocol ??= loadMcpProtocol());
      // A wait can outlast the token: once it is revoked, the call ends with the 401 body.
      const revoked = new AbortController();
      const token = watchStreamToken({
        authenticate,
        secret: bearerToken(request.headers.authorization) ?? '',
        intervalMs: tokenRecheckMs,
        onRevoked: (error) => revoked.abort(error),
      });
      const server = createServer({
        service: serviceOf(request),
        clock,
        caller,
        interrupt: AbortSignal.any([closing.signal, revoked.signal]),
        onServerFault: (error) => request.log.error({ err: error }, 'MCP tool call failed'),
        shared,
      });
      const transport = new Transport({});
      const route = routeLabelOf(request);
      reply.hijack();
      reply.raw.on('close', () => {
        token.stop();
        metrics.observeHttpRequest('POST', route, reply.raw.statusCode, reply.elapsedTime / 1000);
        // Aborts a waiting tool call whose client went away. A response sent whole leaves nothing running; closing
        // the server then would only build the SDK's "connection closed" error for no one.
        if (!reply.raw.writableFinished) void server.close();
      });
      await server.connect(transport);
      const url = `${request.protocol}://${request.host}${request.url}`;
      const response = await transport.handleRequest(toWebRequest(request.method, url, request.headers), {
        parsedBody: request.body,
      });
      await writeWebResponse(response, reply.raw, headerDelayMs);
    },
  );

  // Without sessions there is no stream to open or session to end: MCP clients take 405 as "not offered".
  const notOffered = {
    error: 'Method Not Allowed',
    message: `${path} takes POST requests only`,
    code: 'METHOD_NOT_ALLOWED',
  };
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: path,
      schema: { hide: true },
      handler: async (request, reply) => {
        callerOf(request);
        return reply.code(405).header('allow', 'POST').send(notOffered);
      },
    });
  }
}
