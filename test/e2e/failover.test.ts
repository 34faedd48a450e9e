import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { livenessKeySql, livenessLockSpace } from '../../src/store/postgres/liveness.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { requestsMentioning, userText } from '../support/model-requests.ts';
import { apiClient, crewsDir, spawnCrewd, type CrewdProcess, killHard } from '../support/crewd.ts';
import { HeldPrompts } from '../support/held-prompts.ts';
import { expectFinishedAfterLosingTheNote } from '../support/plain-crew.ts';
import { postgresAvailability, postgresRequired } from '../support/postgres.ts';
import { createTestDatabase } from '../support/postgres-database.ts';
import { readEvents, type SseEvent } from '../support/sse.ts';
import { until } from '../support/until.ts';

const availability = await postgresAvailability();
if (!availability.reachable && postgresRequired()) {
  throw new Error(`${availability.reason} (set CREWD_SKIP_POSTGRES=1 to skip the PostgreSQL suites)`);
}
const skipReason = availability.reachable ? '' : ` (skipped: ${availability.reason})`;

// Leases far longer than any test here may take: a takeover can only come from the dead process's liveness lock,
// a claim scan or a notice, never from a lease running out (but in the hung process's test, which sets its own).
const longLease = { CREWD_EXECUTION_LEASE_MS: '300000' };
/** With this, the claim scan never runs after start-up: only a notice can explain work moving. */
const noScan = { CREWD_CLAIM_SCAN_MS: '3600000' };

let model: FakeOpenAIServer;
const held = new HeldPrompts();
/** Held words of which only the first prompt is held: the process that takes the work over is answered. */
const heldFirstOnly = new Set<string>();
const databases: { drop: () => Promise<void> }[] = [];
const processes: CrewdProcess[] = [];

function holdFirst(words: string): void {
  held.hold(words);
  heldFirstOnly.add(words);
}

function letGo(words: string): void {
  held.letGo(words);
  heldFirstOnly.delete(words);
}

const requestsFor = (words: string): number => requestsMentioning(model, words).length;

async function database(): Promise<string> {
  const created = await createTestDatabase();
  databases.push(created);
  return created.url;
}

async function serve(url: string, env: Record<string, string> = {}): Promise<CrewdProcess> {
  const crewd = await spawnCrewd({
    crewDir: join(crewsDir, 'plain-crew'),
    database: url,
    modelUrl: model.url,
    env: { ...longLease, ...env },
  });
  processes.push(crewd);
  return crewd;
}

async function kickoff(crewd: CrewdProcess, topic: string): Promise<string> {
  const response = await apiClient(crewd.url).post('/kickoff', { inputs: { topic } });
  expect(response.status).toBe(200);
  return response.body.kickoff_id as string;
}

/** One query on the processes' database, as an operator would run it. */
async function sql<Row extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[],
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** The process (its lease owner name) an execution is leased to right now. */
async function leaseOwner(url: string, executionId: string): Promise<string | null> {
  const rows = await sql<{ lease_owner: string | null }>(
    url,
    'SELECT lease_owner FROM executions WHERE id = $1',
    [executionId],
  );
  return rows[0]?.lease_owner ?? null;
}

/**
 * The server process id of the session holding `owner`'s liveness lock (the lock claims look for), or null when no
 * session holds it.
 */
async function livenessSession(url: string, owner: string): Promise<number | null> {
  const rows = await sql<{ pid: number }>(
    url,
    `SELECT lock.pid FROM pg_locks AS lock
     WHERE lock.locktype = 'advisory' AND lock.granted AND lock.objsubid = 2
       AND lock.classid = ${livenessLockSpace}::oid AND lock.objid = ${livenessKeySql('$1::text')}
       AND lock.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [owner],
  );
  return rows[0]?.pid ?? null;
}

/** True once the process is stopped (SIGSTOP): its state in /proc is T. */
function isStopped(crewd: CrewdProcess): boolean {
  const stat = readFileSync(`/proc/${crewd.child.pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T');
}

/** The sum of one counter over the processes' /metrics pages. */
async function counter(crewds: readonly CrewdProcess[], name: string): Promise<number> {
  let total = 0;
  for (const crewd of crewds) {
    const page = (await apiClient(crewd.url).get('/metrics')).body as string;
    const line = page.split('\n').find((text) => text.startsWith(`${name} `));
    total += Number(line?.split(' ')[1] ?? 0);
  }
  return total;
}

/** Events numbered 1, 2, 3… with no gap, and no task ended twice: one writer at a time wrote them. */
function expectEachTaskEndedOnce(events: readonly SseEvent[]): void {
  expect(events.map((event) => event.id)).toEqual(events.map((_, index) => index + 1));
  const ended = events.filter((event) => event.event === 'task-end').map((event) => event.data.task_id);
  expect(ended).toEqual(['outline', 'note', 'summary']);
  expect(events.at(-1)).toMatchObject({ event: 'execution-end', data: { state: 'SUCCESS' } });
}

describe.skipIf(!availability.reachable)(`several processes on one PostgreSQL${skipReason}`, () => {
  beforeAll(async () => {
    let answers = 0;
    model = await startFakeOpenAI({
      respond: (request) => {
        const holding = held.find(userText(request));
        const later =
          holding !== undefined && heldFirstOnly.has(holding.words) && requestsFor(holding.words) > 1;
        return {
          content: `Answer number ${++answers}.`,
          ...(holding === undefined || later ? {} : { heldUntil: holding.until }),
        };
      },
    });
  });

  afterAll(async () => {
    for (const crewd of processes) crewd.child.kill('SIGKILL');
    await Promise.all(processes.map((crewd) => crewd.exited));
    held.letAllGo();
    heldFirstOnly.clear();
    await model.close();
    for (const created of databases) await created.drop();
  });

  it('finishes every execution of a process killed mid-task on the survivors, without re-running a saved task', async () => {
    const url = await database();
    const [victim, second, third] = [await serve(url), await serve(url), await serve(url)];
    const victimTopics = ['ferns', 'mosses', 'lichens'];
    const survivorTopics = ['rivers', 'lakes'];
    for (const topic of [...victimTopics, ...survivorTopics]) held.hold(`Write the note about ${topic}`);
    const ids = new Map<string, string>();
    for (const topic of victimTopics) ids.set(topic, await kickoff(victim, topic));
    ids.set('rivers', await kickoff(second, 'rivers'));
    ids.set('lakes', await kickoff(third, 'lakes'));
    // Every execution has saved its outline and waits for its note.
    await until(() => [...ids.keys()].every((topic) => requestsFor(`Write the note about ${topic}`) === 1));

    await killHard(victim);
    for (const topic of [...victimTopics, ...survivorTopics]) letGo(`Write the note about ${topic}`);

    for (const topic of victimTopics) {
      const done = await apiClient(second.url).waitForState(ids.get(topic)!, ['SUCCESS', 'FAILED']);
      expectFinishedAfterLosingTheNote(model, done, topic);
    }
    for (const topic of survivorTopics) {
      const done = await apiClient(third.url).waitForState(ids.get(topic)!, ['SUCCESS', 'FAILED']);
      expect(done.body.state).toBe('SUCCESS');
      expect(requestsFor(`Write the note about ${topic}`)).toBe(1);
    }
    expect(await counter([second, third], 'crewd_lease_takeovers_total')).toBe(victimTopics.length);
  });

  it('continues the executions of a killed process as soon as it is started again alone', async () => {
    const url = await database();
    const first = await serve(url, noScan);
    const topics = ['tides', 'dunes'];
    for (const topic of topics) held.hold(`Write the note about ${topic}`);
    const ids = await Promise.all(topics.map((topic) => kickoff(first, topic)));
    await until(() => topics.every((topic) => requestsFor(`Write the note about ${topic}`) === 1));
    await killHard(first);
    for (const topic of topics) letGo(`Write the note about ${topic}`);

    const restarted = await serve(url, noScan);

    for (const [index, topic] of topics.entries()) {
      const done = await apiClient(restarted.url).waitForState(ids[index]!, ['SUCCESS', 'FAILED']);
      expectFinishedAfterLosingTheNote(model, done, topic);
    }
  });

  it('starts waiting work on an idle process as soon as it is queued, while the busy one stays full', async () => {
    const url = await database();
    const busy = await serve(url, { ...noScan, CREWD_CONCURRENCY: '1' });
    const idle = await serve(url, noScan);
    held.hold('Write the note about glaciers');
    const first = await kickoff(busy, 'glaciers');
    await until(() => requestsFor('Write the note about glaciers') === 1);

    // The busy process has no room: the execution waits unleased and the idle one is told of it.
    const second = await kickoff(busy, 'icebergs');

    const done = await apiClient(idle.url).waitForState(second, ['SUCCESS', 'FAILED']);
    expect(done.body.state).toBe('SUCCESS');
    expect((await apiClient(busy.url).get(`/status/${first}`)).body.state).toBe('RUNNING');
    letGo('Write the note about glaciers');
    await apiClient(busy.url).waitForState(first, ['SUCCESS']);
  });

  it('streams on one process the events of an execution another runs, and cancels it there at once', async () => {
    const url = await database();
    const runner = await serve(url, noScan);
    const watcher = await serve(url, noScan);
    held.hold('Write the note about reefs');
    const id = await kickoff(runner, 'reefs');
    const streamed = readEvents(`${watcher.url}/executions/${id}/events`, {});
    await until(() => requestsFor('Write the note about reefs') === 1);

    const cancelled = await apiClient(watcher.url).post(`/cancel/${id}`, {});
    expect(cancelled.body).toMatchObject({ state: 'REVOKED' });

    // The lease is renewed only every 100 s: only the notice tells the runner to drop its call.
    await until(() =>
      model.abandoned.some((request) => userText(request).includes('Write the note about reefs')),
    );
    letGo('Write the note about reefs');
    const events = await streamed;
    expect(events.map((event) => event.id)).toEqual(events.map((_, index) => index + 1));
    expect(events.map((event) => event.event)).toContain('task-end');
    expect(events.at(-1)).toMatchObject({ event: 'execution-end', data: { state: 'REVOKED' } });
  });

  it('moves the executions of a hung process when their leases run out, and it writes none of them once woken', async () => {
    // A hung process keeps its liveness lock, so only its leases running out move its work. 3 s keeps the wait short
    // while a live process, renewing every second, would have to stall for 2 s to lose a lease; and should a loaded
    // machine stall one that long, its work goes to the other process or back to itself, which every outcome
    // asserted here allows.
    const shortLease = { CREWD_EXECUTION_LEASE_MS: '3000' };
    const url = await database();
    const hung = await serve(url, shortLease);
    const topics = ['comets', 'meteors'];
    const notes = topics.map((topic) => `Write the note about ${topic}`);
    for (const words of notes) holdFirst(words);
    const ids = new Map<string, string>();
    for (const topic of topics) ids.set(topic, await kickoff(hung, topic));
    await until(() => notes.every((words) => requestsFor(words) === 1));
    const hungCall = (topic: string) => requestsMentioning(model, `Write the note about ${topic}`)[0]!;
    // Read while it runs alone, so the name is its own.
    const owner = (await leaseOwner(url, ids.get('comets')!))!;
    const survivor = await serve(url, shortLease);
    const lockSession = await livenessSession(url, owner);
    expect(lockSession).not.toBeNull();

    hung.child.kill('SIGSTOP');
    await until(() => isStopped(hung));
    // One of its calls is answered while it is stopped, before its lease runs out, so once woken it may read that
    // answer before the notices of the takeover and try to write the note. The other call stays unanswered.
    letGo('Write the note about meteors');

    const finished = new Map<string, { status: unknown; events: SseEvent[] }>();
    for (const topic of topics) {
      const id = ids.get(topic)!;
      const done = await apiClient(survivor.url).waitForState(id, ['SUCCESS', 'FAILED']);
      expect(done.body.state).toBe('SUCCESS');
      expect(done.body.tasks.map((task: { task_id: string }) => task.task_id)).toEqual([
        'outline',
        'note',
        'summary',
      ]);
      // The saved outline is not asked for again; the note, lost with the hung process's call, is.
      expect(requestsFor(`Outline a note about ${topic}`)).toBe(1);
      expect(requestsFor(`Write the note about ${topic}`)).toBeGreaterThanOrEqual(2);
      const events = await readEvents(`${survivor.url}/executions/${id}/events`, {});
      expectEachTaskEndedOnce(events);
      finished.set(topic, { status: done.body, events });
    }
    expect(await counter([survivor], 'crewd_lease_takeovers_total')).toBeGreaterThanOrEqual(topics.length);
    // The same session held the hung process's liveness lock all along: its leases running out moved the work.
    expect(await livenessSession(url, owner)).toBe(lockSession);

    const requestsBefore = model.requests.length;
    hung.child.kill('SIGCONT');

    await until(() => model.abandoned.includes(hungCall('comets')));
    letGo('Write the note about comets');
    // Once its runs of them have ended, it can write nothing more to them: it wrote nothing, and asked nothing more.
    await until(async () => (await counter([hung], 'crewd_executions_running_here')) === 0);
    expect(model.requests.slice(requestsBefore)).toEqual([]);
    for (const topic of topics) {
      const id = ids.get(topic)!;
      expect((await apiClient(hung.url).get(`/status/${id}`)).body).toEqual(finished.get(topic)!.status);
      expect(await readEvents(`${hung.url}/executions/${id}/events`, {})).toEqual(
        finished.get(topic)!.events,
      );
    }
    // And it serves on.
    expect((await apiClient(hung.url, null).get('/health/ready')).status).toBe(200);
    const fresh = await kickoff(hung, 'auroras');
    expect((await apiClient(hung.url).waitForState(fresh, ['SUCCESS', 'FAILED'])).body.state).toBe('SUCCESS');
  });
});
