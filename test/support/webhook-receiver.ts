import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary payload fields
  readonly body: any;
}

export interface WebhookReceiver {
  /** Base URL; any path under it is accepted and recorded. */
  readonly url: string;
  readonly received: ReceivedWebhook[];
  /** Waits until `count` webhooks arrived at `path` and returns them. */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 that answers 200 and records every request. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
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
      received.push({ path: request.url ?? '/', headers: request.headers, rawBody, body });
      response.writeHead(200).end('ok');
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
        const matching = received.filter((webhook) => webhook.path === path);
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
