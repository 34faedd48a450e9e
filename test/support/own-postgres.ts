import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { userInfo } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A PostgreSQL cluster of a test's (or the chaos run's) own, in a temporary directory on a free port: never the
 * shared one, so it can be stopped and started under crewd.
 */
export interface OwnPostgres {
  readonly url: string;
  /** Stops the cluster (fast shutdown: clients are disconnected) and starts it again; resolves once it is up. */
  restart(): Promise<void>;
  /** Fast shutdown: clients are disconnected and new connections refused; resolves once it is down. */
  down(): Promise<void>;
  /** Starts the stopped cluster again; resolves once it accepts connections. */
  up(): Promise<void>;
  /** Stops the cluster for good and deletes its files. */
  stop(): void;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** PostgreSQL will not run as root: as root, the cluster runs as the `postgres` user. */
function clusterCommand(command: string, args: readonly string[]): [string, string[]] {
  return userInfo().uid === 0
    ? ['runuser', ['-u', 'postgres', '--', command, ...args]]
    : [command, [...args]];
}

function asClusterUser(command: string, args: readonly string[]): void {
  const [file, fullArgs] = clusterCommand(command, args);
  execFileSync(file, fullArgs, { stdio: 'ignore' });
}

const run = promisify(execFile);
async function asClusterUserLater(command: string, args: readonly string[]): Promise<void> {
  const [file, fullArgs] = clusterCommand(command, args);
  await run(file, fullArgs);
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const directory = mkdtempSync(join(tmpdir(), 'crewd-own-pg-'));
  chmodSync(directory, 0o755);
  const data = join(directory, 'data');
  mkdirSync(data);
  if (userInfo().uid === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(directory, uid, gid);
    chownSync(data, uid, gid);
  }
  const port = await freePort();
  asClusterUser('initdb', ['-D', data, '-U', 'crewd', '--auth=trust', '-E', 'UTF8']);
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1`;
  const startArgs = ['-D', data, '-o', options, '-l', join(directory, 'log'), '-w', 'start'];
  asClusterUser('pg_ctl', startArgs);
  const down = (): Promise<void> => asClusterUserLater('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  const up = (): Promise<void> => asClusterUserLater('pg_ctl', startArgs);
  return {
    url: `postgres://crewd@127.0.0.1:${port}/postgres`,
    async restart() {
      await down();
      // Down for a while, as a database restarting on a bad day would be, while kickoffs keep coming.
      await new Promise((done) => setTimeout(done, 2_000));
      await up();
    },
    down,
    up,
    stop() {
      try {
        asClusterUser('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    },
  };
}
