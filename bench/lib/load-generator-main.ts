// A closed-loop HTTP load generator (autocannon-style) over undici, in its own process so the load it makes
// never competes with the code that measures it. Settings arrive as one JSON argument; results leave over IPC.
import { Pool } from 'undici';

export interface LoadSettings {
  readonly origin: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly connections: number;
  readonly durationMs: number;
}

export interface LoadResult {
  readonly type: 'result';
  readonly requests: number;
  readonly errors: number;
  /** Answers that were not 200. */
  readonly notOk: number;
  readonly seconds: number;
  /** Latency of every answered request, in milliseconds. */
  readonly latencies: number[];
  /** Requests answered in each whole second of the run. */
  readonly perSecond: number[];
}

const settings = JSON.parse(process.argv[2] ?? '{}') as LoadSettings;
const pool = new Pool(settings.origin, { connections: settings.connections, pipelining: 1 });
const latencies: number[] = [];
const perSecond: number[] = [];
let errors = 0;
let notOk = 0;
const started = performance.now();
const end = started + settings.durationMs;

async function connection(): Promise<void> {
  while (performance.now() < end) {
    const sent = performance.now();
    try {
      const response = await pool.request({ method: 'GET', path: settings.path, headers: settings.headers });
      await response.body.dump();
      const answered = performance.now();
      latencies.push(answered - sent);
      const second = Math.floor((answered - started) / 1000);
      perSecond[second] = (perSecond[second] ?? 0) + 1;
      if (response.statusCode !== 200) notOk += 1;
    } catch {
      errors += 1;
    }
  }
}

await Promise.all(Array.from({ length: settings.connections }, connection));
const seconds = (performance.now() - started) / 1000;
await pool.close();
const result: LoadResult = {
  type: 'result',
  requests: latencies.length,
  errors,
  notOk,
  seconds,
  latencies,
  // The last second is partial: only whole seconds describe the rate.
  perSecond: Array.from(perSecond.slice(0, Math.floor(settings.durationMs / 1000)), (count) => count ?? 0),
};
process.send?.(result, () => process.exit(0));
