import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../lib/crew-dirs.ts';
import { crewdEnv } from '../lib/crewd-server.ts';

export interface ChaosServer {
  readonly url: string;
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
}

/** `crewd serve` as a user starts it, on a free port; resolves once it prints its URL. */
export async function spawnChaosServer(options: {
  crewDir: string;
  modelUrl: string;
  database: string;
  env?: Readonly<Record<string, string>>;
}): Promise<ChaosServer> {
  const child = spawn(
    process.execPath,
    [join(repoRoot, 'bin/crewd.js'), 'serve', options.crewDir, '--port', '0', '--database', options.database],
    {
      cwd: repoRoot,
      env: { ...process.env, ...crewdEnv(options.modelUrl), LOG_LEVEL: 'warn', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const look = (): void => {
      const match = /http:\/\/127\.0\.0\.1:\d+/.exec(output);
      if (match !== null) resolve(match[0]);
    };
    child.stdout.on('data', look);
    void exited.then(() => reject(new Error(`crewd exited before listening:\n${output}`)));
  });
  return { url, child, exited, output: () => output };
}
