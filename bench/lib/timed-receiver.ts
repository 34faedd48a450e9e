import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The moment an answer left the fake model, as it wrote it into the answer (`sent at <ms> ms`). */
const sentAt = /sent at (\d+(?:\.\d+)?) ms/g;

export interface TimedReceiver {
  readonly url: string;
  /** Deliveries received so far. */
  readonly count: number;
  /** Milliseconds from the model's answer to the webhook's arrival, for every delivery that carried an answer. */
  readonly latencies: number[];
  /** Raw bodies, so a baseline can send the very same payloads. */
  readonly bodies: string[];
  /** Clock reading (ms since the epoch, high resolution) of the last arrival. */
  readonly lastArrival: number;
  /** Forgets everything received so far. */
  reset(): void;
  /** Resolves once `count` deliveries arrived, or when none arrived for `quietMs`. */
  settle(count: number, quietMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** The same clock on both sides of a loopback hop, in whichever process reads it. */
export function wallClock(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * A webhook receiver on loopback that answers 200 at once and times each delivery against the latest model
 * answer the payload carries (a payload can quote earlier answers, in a prompt; the latest is the event's own).
 */
export async function startTimedReceiver(): Promise<TimedReceiver> {
  let latencies: number[] = [];
  let bodies: string[] = [];
  let lastArrival = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const arrived = wallClock();
      const body = Buffer.concat(chunks).toString();
      const stamps = [...body.matchAll(sentAt)].map((match) => Number(match[1]));
      if (stamps.length > 0) latencies.push(arrived - Math.max(...stamps));
      bodies.push(body);
      lastArrival = arrived;
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get count() {
      return bodies.length;
    },
    get latencies() {
      return latencies;
    },
    get bodies() {
      return bodies;
    },
    get lastArrival() {
      return lastArrival;
    },
    reset() {
      latencies = [];
      bodies = [];
    },
    async settle(count, quietMs = 3000) {
      let seen = bodies.length;
      let quietSince = performance.now();
      while (bodies.length < count) {
        await new Promise((done) => setTimeout(done, 20));
        if (bodies.length !== seen) {
          seen = bodies.length;
          quietSince = performance.now();
        } else if (performance.now() - quietSince > quietMs) {
          return;
        }
      }
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
