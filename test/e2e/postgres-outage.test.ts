import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, crewsDir, spawnCrewd, type ApiResponse, type CrewdProcess } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { numberedAnswers } from '../support/model-requests.ts';
import { startOwnPostgres, type OwnPostgres } from '../support/own-postgres.ts';
import { startScriptedReceiver, type ScriptedReceiver } from '../support/scripted-receiver.ts';
import { until } from '../support/until.ts';

let postgres: OwnPostgres;
let model: FakeOpenAIServer;
let receiver: ScriptedReceiver;
const processes: CrewdProcess[] = [];
/** While set, model calls are answered only once it resolves: executions are mid-task across the outage. */
let held: Promise<void> | undefined;

/** Kicks off executions on every process, one after another, until told to stop; keeps what each answer was. */
function keepKickingOff(urls: readonly string[]) {
  const accepted: string[] = [];
  const refused: ApiResponse[] = [];
  const unexpected: ApiResponse[] = [];
  let going = true;
  const done = (async () => {
    for (let index = 0; going; index += 1) {
      const api = apiClient(urls[index % urls.length]!);
      const answer = await api.post('/kickoff', {
        inputs: { topic: `outage ${index}` },
        crewWebhookUrl: `${receiver.url}/crew`,
      });
      if (answer.status === 200) accepted.push(answer.body.kickoff_id as string);
      else if (answer.status === 503) refused.push(answer);
      else unexpected.push(answer);
    }
  })();
  return {
    accepted,
    refused,
    unexpected,
    async stop() {
      going = false;
      await done;
    },
  };
}

describe('PostgreSQL down and back under load (a cluster of the test own)', () => {
  beforeAll(async () => {
    postgres = await startOwnPostgres();
    const answer = numberedAnswers();
    model = await startFakeOpenAI({
      respond: (request) => (held === undefined ? answer(request) : { ...answer(request), heldUntil: held }),
    });
    receiver = await startScriptedReceiver();
  }, 120_000);

  afterAll(async () => {
    for (const crewd of processes) crewd.child.kill('SIGKILL');
    await Promise.all(processes.map((crewd) => crewd.exited));
    await model?.close();
    await receiver?.close();
    postgres?.stop();
  });

  it('keeps every process up, answers 503 with Retry-After while down, and loses nothing accepted', async () => {
    for (let count = 0; count < 2; count += 1) {
      processes.push(
        await spawnCrewd({
          crewDir: join(crewsDir, 'plain-crew'),
          database: postgres.url,
          modelUrl: model.url,
          // Far longer than the test: an execution that continues did so because its process held on, not
          // because a lease ran out and recovery took it over.
          env: { CREWD_EXECUTION_LEASE_MS: '3600000' },
        }),
      );
    }
    const load = keepKickingOff(processes.map((crewd) => crewd.url));
    await until(() => load.accepted.length >= 30);

    let release = (): void => undefined;
    held = new Promise((resolve) => (release = resolve));
    const requestsBefore = model.requests.length;
    await until(() => model.requests.length >= requestsBefore + 10);

    await postgres.down();
    await until(() => load.refused.length >= 10);
    // The model calls in flight answer while the database is down: their executions cannot write what came next.
    held = undefined;
    release();
    const refusedAtRelease = load.refused.length;
    await until(() => load.refused.length >= refusedAtRelease + 20);
    const ready = await apiClient(processes[0]!.url, null).get('/health/ready');
    await postgres.up();
    const acceptedAfter = load.accepted.length;
    await until(() => load.accepted.length >= acceptedAfter + 30);
    await load.stop();

    expect(load.unexpected.map((answer) => answer.status)).toEqual([]);
    for (const answer of load.refused) {
      expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(answer.body).toMatchObject({ error: 'Service Unavailable', code: 'DEPENDENCY_UNAVAILABLE' });
    }
    expect(ready.status).toBe(503);
    expect(ready.body.message).toBe('The database cannot be reached; try again later');

    const api = apiClient(processes[1]!.url);
    for (const id of load.accepted) {
      const finished = await api.waitForState(id, ['SUCCESS', 'FAILED', 'REVOKED']);
      expect({ id, state: finished.body.state }).toEqual({ id, state: 'SUCCESS' });
    }
    // Webhooks resume: every accepted execution's crew webhook arrives (at least once).
    await until(() => {
      const delivered = new Set(receiver.on('/crew').map((request) => request.body.kickoff_id as string));
      return load.accepted.every((id) => delivered.has(id));
    });
    for (const crewd of processes) expect(crewd.child.exitCode).toBeNull();
    // The operator sees the outage counted, and the queue drained.
    const metrics = await apiClient(processes[0]!.url).get('/metrics');
    const unreachable = /crewd_store_errors_total\{kind="unreachable"\} (\d+)/.exec(metrics.body as string);
    expect(Number(unreachable?.[1])).toBeGreaterThan(0);
    expect(metrics.body).toContain('crewd_queue_depth 0');
  }, 240_000);
});
