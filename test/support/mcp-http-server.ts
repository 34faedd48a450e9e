import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createDemoServer } from '../fixtures/mcp/demo-server.mjs';

export interface McpHttpServer {
  readonly url: string;
  /** Requests received, as `METHOD path`, to tell which transport a client used. */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

/**
 * The demo MCP server over Streamable HTTP on loopback, stateless: a fresh server for each POST. With `servedAt`,
 * it serves there and redirects requests for any other path to it (as servers that want a trailing slash do).
 */
export function startStreamableHttpServer(servedAt?: string): Promise<McpHttpServer> {
  return listen(async (request, response) => {
    if (servedAt !== undefined && request.url?.split('?')[0] !== servedAt) {
      response.writeHead(308, { location: servedAt }).end();
      return;
    }
    if (request.method !== 'POST') {
      response.writeHead(405).end();
      return;
    }
    const server = createDemoServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });
}

/** The demo MCP server speaking only the older HTTP+SSE transport: `GET /sse` opens a stream, POSTs go elsewhere. */
export function startSseOnlyServer(): Promise<McpHttpServer> {
  const sessions = new Map<string, SSEServerTransport>();
  return listen(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', response);
      sessions.set(transport.sessionId, transport);
      response.on('close', () => sessions.delete(transport.sessionId));
      await createDemoServer().connect(transport);
      return;
    }
    const transport = sessions.get(url.searchParams.get('sessionId') ?? '');
    if (request.method === 'POST' && url.pathname === '/messages' && transport !== undefined) {
      await transport.handlePostMessage(request, response);
      return;
    }
    // What an SSE-only server answers to a Streamable HTTP POST: the client falls back to SSE.
    response.writeHead(405).end();
  }, '/sse');
}

/** A server that answers every request with `status` and, carelessly, the request's headers in its body. */
export function startRejectingServer(status: number): Promise<McpHttpServer> {
  return listen((request, response) => {
    response.writeHead(status, { 'content-type': 'text/plain' }).end(JSON.stringify(request.headers));
    return Promise.resolve();
  });
}

/** A server that redirects every request to `location`, keeping the method (HTTP 307). */
export function startRedirectingServer(location: string): Promise<McpHttpServer> {
  return listen((_request, response) => {
    response.writeHead(307, { location }).end();
    return Promise.resolve();
  });
}

/**
 * A server that fails the Streamable HTTP POST, so clients fall back to SSE, and then names `endpoint` as where its
 * SSE session takes messages.
 */
export function startSseEndpointServer(endpoint: string): Promise<McpHttpServer> {
  return listen((request, response) => {
    if (request.method !== 'GET') {
      response.writeHead(405).end();
      return Promise.resolve();
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    response.write(`event: endpoint\ndata: ${endpoint}\n\n`);
    return Promise.resolve();
  }, '/sse');
}

/**
 * A server that refuses Streamable HTTP, so clients fall back to SSE, and then never answers the SSE request: a
 * connection attempt that stays under way until the client gives up.
 */
export function startStallingServer(): Promise<McpHttpServer> {
  return listen((request, response) => {
    if (request.method !== 'GET') response.writeHead(405).end();
    return Promise.resolve();
  });
}

/** A loopback URL where nothing listens: a port that was just free. */
export async function unreachableUrl(): Promise<string> {
  const server = await listen(() => Promise.resolve());
  await server.close();
  return server.url;
}

async function listen(
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
  path = '/mcp',
): Promise<McpHttpServer> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url?.split('?')[0]}`);
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
