import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  readonly path: string;
  /** The status the receiver answered with. */
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary payload fields
  readonly body: any;
}

export interface WebhookReceiver {
  /** Base URL; any path under it is accepted and recorded. */
  readonly url: string;
  readonly received: ReceivedWebhook[];
  /** Waits until `count` webhooks were accepted (answered 2xx) at `path` and returns them. */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/**
 * A webhook receiver on 127.0.0.1 that records every request and answers 200, or what `status` says (to play a
 * receiver that is down).
 */
export async function startWebhookReceiver(
  options: { status?: (path: string) => number } = {},
): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString();
      let body: unknown = rawBody;
      try {
        body = JSON.parse(rawBody);
      } catch {
        // recorded as text
      }
      const path = request.url ?? '/';
      const status = options.status?.(path) ?? 200;
      received.push({ path, status, headers: request.headers, rawBody, body });
      response.writeHead(status).end(status < 300 ? 'ok' : 'unavailable');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    async waitFor(path, count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matching = received.filter((webhook) => webhook.path === path && webhook.status < 300);
        if (matching.length >= count) return matching;
        if (Date.now() > deadline) {
          throw new Error(`only ${matching.length} of ${count} webhooks arrived at ${path}`);
        }
        await new Promise((done) => setTimeout(done, 20));
      }
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
