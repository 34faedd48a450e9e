import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './crew-dirs.ts';
import { rssOf } from './proc-readings.ts';

export const benchToken = 'crewd_bench_organization_token_0001';

export interface CrewdServer {
  readonly url: string;
  readonly pid: number;
  /** Milliseconds from spawning the process to reading its URL. */
  readonly startedInMs: number;
  /** Everything it printed lately (the tail), for error messages. */
  output(): string;
  /**
   * Runs a full garbage collection in the server and resolves with its memory after; only for servers
   * started with `gcHook`. Tells memory the server holds from garbage it has not collected yet.
   */
  collectGarbage(): Promise<NodeJS.MemoryUsage>;
  /** The size of each V8 heap space in bytes, without collecting; only for servers started with `gcHook`. */
  heapSpaces(): Promise<Record<string, number>>;
  /** SIGTERM and wait: the server closes cleanly (and writes its CPU profile when asked to). */
  stop(): Promise<void>;
}

export interface CrewdServerOptions {
  readonly crewDir: string;
  /** More crews served beside `crewDir`, each under `/crews/<its directory's name>`. */
  readonly moreCrewDirs?: readonly string[];
  readonly modelUrl: string;
  /** A file path or postgres:// URL; default a fresh SQLite file, removed on stop. */
  readonly database?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Node flags, e.g. `--cpu-prof`. */
  readonly nodeArgs?: readonly string[];
  /** The checkout to run, for two builds side by side in one script; default `BENCH_CREWD_ROOT` or this one. */
  readonly root?: string;
  /**
   * Lets `collectGarbage` and `heapSpaces` work: a preloaded hook that collects on SIGUSR2 and prints the memory
   * after, and prints the heap's spaces on SIGWINCH.
   */
  readonly gcHook?: boolean;
}

// Preloaded as a data: URL, so it needs no loader and no file; it only listens for signals crewd does not use.
const gcHook = `import v8 from 'node:v8';
process.on('SIGUSR2', () => {
  globalThis.gc(); globalThis.gc();
  process.stderr.write('bench-gc ' + JSON.stringify(process.memoryUsage()) + '\\n');
});
process.on('SIGWINCH', () => {
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((space) => [space.space_name, space.space_size]));
  process.stderr.write('bench-heap ' + JSON.stringify(spaces) + '\\n');
});`;
const gcArgs = ['--expose-gc', '--import', `data:text/javascript,${encodeURIComponent(gcHook)}`];

/** The variables every benchmark server gets: a known token, the fake model, no rate limit, loopback webhooks. */
export function crewdEnv(modelUrl: string): Record<string, string> {
  return {
    CREWD_ORG_TOKEN: benchToken,
    OPENAI_BASE_URL: modelUrl,
    OPENAI_API_KEY: 'sk-bench-key',
    CREWD_RATE_LIMIT: '0',
    CREWD_WEBHOOK_ALLOW_PRIVATE: '1',
  };
}

/**
 * Profiling flags for a crewd server when the runner asked for profiles, else none. Each server gets a folder of
 * its own: Node writes one profile per thread (the main thread and the TypeScript loader's worker).
 */
export function profileArgs(profileDir: string | undefined, name: string): string[] {
  return profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, name)}`];
}

/**
 * The checkout whose `bin/crewd.js` the servers run: this one, or `BENCH_CREWD_ROOT` (another checkout's build,
 * used read-only, to measure the same figure before and after a change on the same machine at the same time).
 */
const crewdRoot = process.env.BENCH_CREWD_ROOT ?? repoRoot;

/** Node options for every crewd server of a run (`BENCH_SERVER_NODE_ARGS`, split on spaces), to try V8 settings. */
const serverNodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');

/** Starts `crewd serve` exactly as a user would (`node bin/crewd.js serve …`) and waits for its URL. */
export async function startCrewdServer(options: CrewdServerOptions): Promise<CrewdServer> {
  const tempDir = options.database === undefined ? mkdtempSync(join(tmpdir(), 'crewd-bench-db-')) : undefined;
  const database = options.database ?? join(tempDir!, 'crewd.db');
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...(options.gcHook === true ? gcArgs : []),
      ...(options.nodeArgs ?? []),
      ...serverNodeArgs,
      join(options.root ?? crewdRoot, 'bin/crewd.js'),
      'serve',
      options.crewDir,
      ...(options.moreCrewDirs ?? []),
      '--port',
      '0',
      '--database',
      database,
    ],
    {
      cwd: repoRoot,
      env: { ...process.env, ...crewdEnv(options.modelUrl), ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let tail = '';
  // What the gcHook printed, by tag, newest last.
  let reports: { tag: string; value: unknown }[] = [];
  let partialLine = '';
  // Kept reading for the whole run: a full pipe would stall the server's logging and so the server.
  const keep = (chunk: Buffer): void => {
    tail = (tail + chunk.toString()).slice(-8_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.stderr.on('data', (chunk: Buffer) => {
    const lines = (partialLine + chunk.toString()).split('\n');
    partialLine = lines.pop() ?? '';
    for (const line of lines) {
      const match = /^(bench-gc|bench-heap) (.*)$/.exec(line);
      if (match !== null) reports.push({ tag: match[1]!, value: JSON.parse(match[2]!) });
    }
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));

  async function askHook(signal: NodeJS.Signals, tag: string): Promise<unknown> {
    if (options.gcHook !== true) throw new Error('this reading needs a server started with gcHook');
    reports = [];
    child.kill(signal);
    const deadline = performance.now() + 30_000;
    for (;;) {
      const report = reports.find((entry) => entry.tag === tag);
      if (report !== undefined) return report.value;
      if (performance.now() > deadline) throw new Error(`the server did not answer ${signal}`);
      await new Promise((done) => setTimeout(done, 20));
    }
  }

  const url = await waitForUrl(child, exited, () => tail);
  const startedInMs = performance.now() - started;
  return {
    url,
    pid: child.pid!,
    startedInMs,
    output: () => tail,
    async collectGarbage() {
      const usage = (await askHook('SIGUSR2', 'bench-gc')) as NodeJS.MemoryUsage;
      // V8 hands freed pages back to the system shortly after a collection, not during it: read RSS after that.
      await new Promise((done) => setTimeout(done, 500));
      return { ...usage, rss: rssOf(child.pid!) };
    },
    async heapSpaces() {
      return (await askHook('SIGWINCH', 'bench-heap')) as Record<string, number>;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(killer);
      }
      if (tempDir !== undefined) rmSync(tempDir, { recursive: true, force: true });
    },
  };
}

function waitForUrl(child: ChildProcess, exited: Promise<void>, output: () => string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`crewd did not start in time:\n${output()}`)), 30_000);
    const look = (): void => {
      const match = /http:\/\/127\.0\.0\.1:\d+/.exec(output());
      if (match === null) return;
      clearTimeout(timer);
      child.stdout?.off('data', look);
      resolve(match[0]);
    };
    child.stdout?.on('data', look);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`crewd exited before listening: ${output().trim().split('\n').at(-1) ?? ''}`));
    });
  });
}
