import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { rssOf } from '../lib/proc-readings.ts';
import type { ChaosRow } from './chaos-row.ts';
import type { ChaosServer } from './chaos-server.ts';
import { call, isServerError, settle } from './http-client.ts';

/** Sockets that send `POST /kickoff` headers announcing 1 MB and then nothing, from another loopback address. */
function openSlowBodies(url: string, count: number): { sockets: Socket[]; closed: () => number } {
  const { port } = new URL(url);
  let closed = 0;
  const sockets: Socket[] = [];
  for (let index = 0; index < count; index += 1) {
    const socket = connect({ port: Number(port), host: '127.0.0.1', localAddress: '127.0.0.2' });
    socket.on('error', () => undefined);
    // Reads (and drops) what comes, or the socket would never see crewd close it.
    socket.resume();
    socket.once('close', () => (closed += 1));
    socket.on('connect', () =>
      socket.write(
        'POST /kickoff HTTP/1.1\r\nHost: crewd\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n',
      ),
    );
    sockets.push(socket);
  }
  return { sockets, closed: () => closed };
}

/** Open file descriptors of a process (Linux). */
const descriptorsOf = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

/**
 * 2,000 slow-body sockets while a client on another address keeps working: it must not notice, and crewd holds no
 * more of the attacker's connections than the per-address cap. Connections the kernel has not handed to crewd yet
 * (the listen queue is full, the client retries later) cost crewd nothing, so they are not what is bounded.
 */
export async function slowBodyFlood(server: ChaosServer): Promise<ChaosRow> {
  const attackers = 2_000;
  const pid = server.child.pid!;
  const idleDescriptors = descriptorsOf(pid);
  let mostDescriptors = idleDescriptors;
  const sampler = setInterval(() => {
    mostDescriptors = Math.max(mostDescriptors, descriptorsOf(pid));
  }, 50);
  const flood = openSlowBodies(server.url, attackers);
  let served = 0;
  let serverErrors = 0;
  const ids: string[] = [];
  const tried = 100;
  for (let index = 0; index < tried; index += 1) {
    const answer = await call(server.url, 'POST', '/kickoff', { inputs: { topic: `flood ${index}` } });
    if (answer.status === 200) {
      served += 1;
      ids.push(answer.body.kickoff_id as string);
    }
    if (isServerError(answer.status)) serverErrors += 1;
  }
  const states = await settle(server.url, ids, 60_000);
  // Every attacker's connection ends: refused with 401 and closed, or closed at once by the per-address cap.
  const deadline = performance.now() + 40_000;
  while (flood.closed() < attackers && performance.now() < deadline) {
    await new Promise((done) => setTimeout(done, 100));
  }
  clearInterval(sampler);
  const lost = ids.filter((id) => states.get(id) !== 'SUCCESS').length;
  const closedByCrewd = flood.closed();
  for (const socket of flood.sockets) socket.destroy();
  // The cap, plus the legitimate client's connections and the model's.
  const bound = 256 + 64;
  const added = mostDescriptors - idleDescriptors;
  return {
    scenario: `${attackers} slow-body sockets, kickoffs from another address`,
    tried,
    survived: served,
    lost,
    serverErrors,
    bound: `descriptors held at most +${added} (≤ ${bound}); attacker sockets closed by crewd: ${closedByCrewd} of ${attackers}`,
    held: served === tried && lost === 0 && added <= bound && closedByCrewd === attackers,
  };
}

/** 300 kickoffs with the largest meta allowed, 20 with 1 MiB (refused), then the largest listing page. */
export async function metaMemory(server: ChaosServer): Promise<ChaosRow> {
  const before = rssOf(server.child.pid!);
  const meta = { note: 'm'.repeat(16 * 1024 - 20) };
  const ids: string[] = [];
  let serverErrors = 0;
  let refused = 0;
  for (let index = 0; index < 20; index += 1) {
    const answer = await call(server.url, 'POST', '/kickoff', {
      inputs: { topic: 'big' },
      meta: { note: 'x'.repeat(1024 * 1024 - 100) },
    });
    if (answer.status === 400 || answer.status === 413) refused += 1;
  }
  const tried = 300;
  for (let index = 0; index < tried; index += 1) {
    const answer = await call(server.url, 'POST', '/kickoff', { inputs: { topic: `meta ${index}` }, meta });
    if (answer.status === 200) ids.push(answer.body.kickoff_id as string);
    if (isServerError(answer.status)) serverErrors += 1;
  }
  const states = await settle(server.url, ids, 120_000);
  // Every status read once, as pollers would, to fill the status cache.
  for (const id of ids) await call(server.url, 'GET', `/status/${id}`);
  const page = await call(server.url, 'GET', '/executions?limit=100');
  const grownMb = (rssOf(server.child.pid!) - before) / 1024 / 1024;
  const pageMb = page.bytes / 1024 / 1024;
  const lost = ids.filter((id) => states.get(id) !== 'SUCCESS').length;
  return {
    scenario: '300 kickoffs with 16 KiB meta, 20 with 1 MiB',
    tried: tried + 20,
    survived: ids.length + refused,
    lost,
    serverErrors,
    bound: `RSS +${grownMb.toFixed(0)} MB (≤ 150); a 100-item page ${pageMb.toFixed(1)} MB (≤ 2.5); 1 MiB meta refused ${refused}/20`,
    held: grownMb <= 150 && pageMb <= 2.5 && refused === 20 && lost === 0,
  };
}
