import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Time and connection limits of the HTTP server: what a client that sends slowly, or not at all, may hold. The
 * names are Fastify's and Node's own options.
 */
export interface ConnectionLimits {
  /** Node's `headersTimeout`: the request line and headers must arrive within this. */
  readonly headersTimeoutMs: number;
  /** Fastify's `requestTimeout`: the whole request, headers and body, must arrive within this. */
  readonly requestTimeoutMs: number;
  /** Fastify's `keepAliveTimeout`: an idle kept-alive connection is closed after this. */
  readonly keepAliveTimeoutMs: number;
  /**
   * Fastify's `connectionTimeout`: a connection on which nothing moves either way for this long is closed. Longer
   * than the event streams' heartbeat, which keeps an open stream moving.
   */
  readonly connectionTimeoutMs: number;
  /** How often Node checks the header and request deadlines (its `connectionsCheckingInterval`). */
  readonly checkIntervalMs: number;
  /** Open connections one client address may hold; further ones are closed at once. 0: no cap. */
  readonly connectionsPerAddress: number;
}

export const defaultConnectionLimits: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  connectionTimeoutMs: 60_000,
  checkIntervalMs: 1_000,
  connectionsPerAddress: 256,
};

/** The Fastify options that apply `limits`. */
export function connectionOptions(limits: ConnectionLimits) {
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionTimeout: limits.connectionTimeoutMs,
    http: {
      // Given here too: Node checks the header deadline against it when the server is made.
      requestTimeout: limits.requestTimeoutMs,
      // Node refuses a header deadline past the request deadline.
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      connectionsCheckingInterval: limits.checkIntervalMs,
    },
  };
}

/**
 * Closes a new connection at once when its address already holds `limit` open ones, so one client cannot take every
 * file descriptor the process has, whatever it sends.
 */
export function capConnectionsPerAddress(server: Server, limit: number): void {
  if (limit <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const count = open.get(address) ?? 0;
    if (count >= limit) {
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
