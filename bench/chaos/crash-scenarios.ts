import { connect } from 'node:net';
import { benchToken } from '../lib/crewd-server.ts';
import type { ChaosRow } from './chaos-row.ts';
import { spawnChaosServer } from './chaos-server.ts';
import { call, isServerError, settle } from './http-client.ts';
import type { OwnPostgres } from '../../test/support/own-postgres.ts';

export interface CrashOptions {
  readonly crewDir: string;
  readonly modelUrl: string;
  readonly database: string;
  /** How many model requests have been received so far. */
  readonly modelRequests: () => number;
}

/** 150 kickoffs, kill -9 while they run, a restart on the same database: every accepted one must finish. */
export async function killUnderLoad(options: CrashOptions): Promise<ChaosRow> {
  const env = { CREWD_EXECUTION_LEASE_MS: '1000' };
  const first = await spawnChaosServer({ ...options, env });
  const ids: string[] = [];
  let serverErrors = 0;
  const tried = 150;
  const before = options.modelRequests();
  for (let index = 0; index < tried; index += 1) {
    const answer = await call(first.url, 'POST', '/kickoff', { inputs: { topic: `crash ${index}` } });
    if (answer.status === 200) ids.push(answer.body.kickoff_id as string);
    if (isServerError(answer.status)) serverErrors += 1;
  }
  while (options.modelRequests() - before < 150) await new Promise((done) => setTimeout(done, 20));
  first.child.kill('SIGKILL');
  await first.exited;
  const second = await spawnChaosServer({ ...options, env });
  try {
    const states = await settle(second.url, ids, 120_000);
    const lost = ids.filter((id) => states.get(id) !== 'SUCCESS').length;
    return {
      scenario: 'kill -9 with 150 executions in flight, then a restart',
      tried,
      survived: ids.length - lost,
      lost,
      serverErrors,
      bound: 'every accepted execution reaches SUCCESS',
      held: lost === 0 && ids.length === tried,
    };
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
  }
}

/** Kickoffs while the database restarts under crewd: refusals are 503, everything accepted finishes. */
export async function databaseRestart(
  options: Omit<CrashOptions, 'database'>,
  postgres: OwnPostgres,
): Promise<ChaosRow> {
  const server = await spawnChaosServer({ ...options, database: postgres.url });
  try {
    const ids: string[] = [];
    let serverErrors = 0;
    let unavailable = 0;
    const tried = 150;
    let restarted: Promise<void> = Promise.resolve();
    for (let index = 0; index < tried; index += 1) {
      // The kickoffs go on while the database is down.
      if (index === 50) restarted = postgres.restart();
      const answer = await call(server.url, 'POST', '/kickoff', { inputs: { topic: `restart ${index}` } });
      if (answer.status === 200) ids.push(answer.body.kickoff_id as string);
      if (answer.status === 503) unavailable += 1;
      if (isServerError(answer.status)) serverErrors += 1;
      if (index >= 50 && index < 100) await new Promise((done) => setTimeout(done, 50));
    }
    await restarted;
    const states = await settle(server.url, ids, 120_000);
    const lost = ids.filter((id) => states.get(id) !== 'SUCCESS').length;
    return {
      scenario: 'PostgreSQL restarted under 150 kickoffs (its own cluster)',
      tried,
      survived: ids.length - lost + unavailable,
      lost,
      serverErrors,
      bound: `refused with 503: ${unavailable}; accepted: ${ids.length}`,
      held: lost === 0 && serverErrors === 0 && ids.length + unavailable === tried,
    };
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
}

/** SIGTERM with 50 authorized requests whose bodies never finish: the process exits within the grace period. */
export async function shutdownWithSlowClients(options: CrashOptions): Promise<ChaosRow> {
  const graceMs = 2_000;
  const server = await spawnChaosServer({ ...options, env: { CREWD_SHUTDOWN_GRACE_MS: String(graceMs) } });
  const { port } = new URL(server.url);
  const clients = 50;
  let continued = 0;
  for (let index = 0; index < clients; index += 1) {
    const socket = connect({ port: Number(port), host: '127.0.0.1' });
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('100 Continue')) continued += 1;
    });
    socket.write(
      `POST /kickoff HTTP/1.1\r\nHost: crewd\r\nAuthorization: Bearer ${benchToken}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n{"inputs":',
    );
  }
  while (continued < clients) await new Promise((done) => setTimeout(done, 20));
  const started = performance.now();
  server.child.kill('SIGTERM');
  const exit = await server.exited;
  const seconds = (performance.now() - started) / 1000;
  return {
    scenario: 'SIGTERM with 50 request bodies that never finish',
    tried: 1,
    survived: exit.code === 0 ? 1 : 0,
    lost: 0,
    serverErrors: 0,
    bound: `exited ${exit.code ?? exit.signal} after ${seconds.toFixed(1)} s (grace ${graceMs / 1000} s, ≤ grace + 3 s)`,
    held: exit.code === 0 && seconds <= graceMs / 1000 + 3,
  };
}
