import { createServer } from 'node:http';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hangAfterMs, until } from './until.ts';

export interface ReceivedRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: string;
  /** The body parsed as JSON, or the raw text when it is not JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary payload fields
  readonly body: any;
  readonly at: number;
}

/** Answers one request; `count` is how many requests reached this path so far, this one included. */
export type Answer = (response: ServerResponse, request: ReceivedRequest, count: number) => void;

export interface ScriptedReceiver {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly received: ReceivedRequest[];
  /** TCP connections accepted, whether or not a request followed. */
  readonly connections: () => number;
  /** Sets how requests to `path` are answered (200 `ok` unless set). */
  answer(path: string, answer: Answer): void;
  on(path: string): ReceivedRequest[];
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export const ok: Answer = (response) => response.writeHead(200).end('ok');

/** A receiver on 127.0.0.1 whose answers each test scripts per path; it records every request it reads. */
export async function startScriptedReceiver(port = 0): Promise<ScriptedReceiver> {
  const received: ReceivedRequest[] = [];
  const answers = new Map<string, Answer>();
  let connections = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString();
      const entry: ReceivedRequest = {
        path: request.url ?? '/',
        headers: request.headers,
        rawBody,
        body: parseJson(rawBody),
        at: Date.now(),
      };
      received.push(entry);
      const count = received.filter((item) => item.path === entry.path).length;
      (answers.get(entry.path) ?? ok)(response, entry, count);
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  const address = server.address() as AddressInfo;
  const on = (path: string): ReceivedRequest[] => received.filter((item) => item.path === path);
  return {
    port: address.port,
    url: `http://127.0.0.1:${address.port}`,
    received,
    connections: () => connections,
    answer(path, answer) {
      answers.set(path, answer);
    },
    on,
    async waitFor(path, count, timeoutMs = hangAfterMs) {
      await until(
        () => on(path).length >= count,
        timeoutMs,
        () => `only ${on(path).length} of ${count} requests reached ${path}`,
      );
      return on(path);
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
