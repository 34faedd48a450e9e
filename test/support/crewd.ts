import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { readServeConfig, type ServedCrewConfig } from '../../src/config.ts';
import type { RateLimiter } from '../../src/engine/rate-limiter.ts';
import type { PriceTable } from '../../src/llm/price-table.ts';
import { startServer, type RunningServer } from '../../src/main.ts';
import { hangAfterMs, until } from './until.ts';

export const testToken = 'crewd_test_organization_token_0001';
const repoRoot = resolve(import.meta.dirname, '../..');

export function tempDatabase(): string {
  return join(mkdtempSync(join(tmpdir(), 'crewd-e2e-')), 'crewd.db');
}

export interface CrewdOptions {
  readonly crewDir: string;
  readonly database?: string;
  readonly env?: Readonly<Record<string, string>>;
}

function serverEnv(options: CrewdOptions, modelUrl: string): Record<string, string> {
  return {
    CREWD_ORG_TOKEN: testToken,
    OPENAI_BASE_URL: modelUrl,
    OPENAI_API_KEY: 'sk-test-key',
    CREWD_WEBHOOK_ALLOW_PRIVATE: '1',
    CREWD_RATE_LIMIT: '0',
    ...options.env,
  };
}

export interface InProcessOptions extends CrewdOptions {
  readonly modelUrl: string;
  /** The server's wall clock (a `movableClock()`), so a test moves time instead of waiting. */
  readonly clock?: () => Date;
  /** The server's max_rpm limiter (a `recordingLimiter()`), so a test reads the spacing instead of timing it. */
  readonly rateLimiter?: RateLimiter;
  /** Several crews to serve, each under `/crews/<name>` (`crewDir` is then the first's). */
  readonly crews?: readonly ServedCrewConfig[];
  /** `--allow-partial`: serve even when parts of the crew are left out or its MCP servers cannot be reached. */
  readonly allowPartial?: boolean;
  /** How often schedules are looked at, in real time (default 1 s). */
  readonly schedulePollMs?: number;
  /** Model prices, in place of the bundled price table. */
  readonly prices?: PriceTable;
}

/** Starts crewd in this process on a free port, with the organization token `testToken`. */
export async function startCrewd(options: InProcessOptions): Promise<RunningServer> {
  const env = serverEnv(options, options.modelUrl);
  const database = options.database ?? tempDatabase();
  const flags = { port: '0', database, ...(options.allowPartial === true ? { allowPartial: true } : {}) };
  const read = readServeConfig(options.crewDir, flags, env);
  const config = options.crews === undefined ? read : { ...read, crews: options.crews };
  return startServer(config, {
    env,
    logger: pino({ level: 'silent' }),
    clock: options.clock,
    rateLimiter: options.rateLimiter,
    ...(options.schedulePollMs === undefined ? {} : { schedulePollMs: options.schedulePollMs }),
    ...(options.prices === undefined ? {} : { prices: options.prices }),
  });
}

/**
 * Runs `use` with two servers of the same crew sharing one SQLite file, as two processes would, and closes both
 * after.
 */
export async function withServersSharingDatabase(
  options: { crewDir: string; modelUrl: string; env?: Readonly<Record<string, string>> },
  use: (first: RunningServer, second: RunningServer) => Promise<void>,
): Promise<void> {
  const database = tempDatabase();
  const first = await startCrewd({ ...options, database });
  const second = await startCrewd({ ...options, database }).catch(async (error: unknown) => {
    await first.close();
    throw error;
  });
  try {
    await use(first, second);
  } finally {
    await second.close();
    await first.close();
  }
}

export interface CrewdProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Kills the process with SIGKILL, as a crash or a power loss would, and resolves once it has ended. */
export async function killHard(crewd: CrewdProcess): Promise<void> {
  crewd.child.kill('SIGKILL');
  await crewd.exited;
}

/** Starts `crewd serve` as a child process (for crash tests) and waits until it prints its URL. */
export async function spawnCrewd(options: CrewdOptions & { modelUrl: string }): Promise<CrewdProcess> {
  const database = options.database ?? tempDatabase();
  const child = spawn(
    process.execPath,
    [join(repoRoot, 'bin/crewd.js'), 'serve', options.crewDir, '--port', '0', '--database', database],
    { cwd: repoRoot, env: { ...process.env, ...serverEnv(options, options.modelUrl) }, stdio: 'pipe' },
  );
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    child.on('exit', (code, signal) => done({ code, signal }));
  });
  let startTimer: NodeJS.Timeout | undefined;
  const url = await new Promise<string>((done, fail) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /http:\/\/127\.0\.0\.1:\d+/.exec(output);
      if (match !== null) done(match[0]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then(() => fail(new Error(`crewd exited before listening:\n${output}`)));
    startTimer = setTimeout(() => {
      // Not left behind to run on after the test has failed.
      child.kill('SIGKILL');
      fail(new Error(`crewd did not start in time:\n${output}`));
    }, hangAfterMs).unref();
  }).finally(() => clearTimeout(startTimer));
  return { url, child, output: () => output, exited };
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary response fields
  readonly body: any;
}

/** A small JSON client for tests. */
export function apiClient(baseUrl: string, token: string | null = testToken) {
  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // plain text answers (GET /) stay text
    }
    return { status: response.status, headers: response.headers, body: parsed } as ApiResponse;
  }
  return {
    call,
    get: (path: string, headers?: Record<string, string>) => call('GET', path, undefined, headers),
    post: (path: string, body?: unknown, headers?: Record<string, string>) =>
      call('POST', path, body, headers),
    /** Polls /status until the state is one of `states`. */
    async waitForState(id: string, states: readonly string[], timeoutMs = hangAfterMs): Promise<ApiResponse> {
      let status: ApiResponse | undefined;
      await until(
        async () => {
          status = await call('GET', `/status/${id}`);
          return states.includes(status.body?.state as string);
        },
        timeoutMs,
        () => `execution ${id} stayed ${JSON.stringify(status?.body?.state)}; wanted ${states.join('/')}`,
      );
      return status!;
    },
  };
}

export const crewsDir = join(repoRoot, 'test/e2e/crews');
