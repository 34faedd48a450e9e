import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { apiClient, crewsDir, startCrewd, tempDatabase } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { movableClock } from '../support/movable-clock.ts';
import { numberedAnswers } from '../support/model-requests.ts';
import { startScriptedReceiver, type ScriptedReceiver } from '../support/scripted-receiver.ts';
import { until } from '../support/until.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;
let receiver: ScriptedReceiver;
const servers: RunningServer[] = [];
const hour = 3_600_000;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: numberedAnswers() });
  receiver = await startScriptedReceiver();
});

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

afterAll(async () => {
  await receiver.close();
  await model.close();
});

/** The review crew, its `draft` review answered by `onDeadline` (tasks.yaml lines) once an hour has passed. */
function crewWithDeadline(onDeadline: string): string {
  const dir = userCrew(join(crewsDir, 'review-crew'));
  const tasks = join(dir, 'tasks.yaml');
  const draft = '  human_input: true\n';
  const text = readFileSync(tasks, 'utf8');
  writeFileSync(
    tasks,
    text.replace(draft, `${draft}  human_input_deadline: 1h\n  human_input_on_deadline: ${onDeadline}\n`),
  );
  return dir;
}

/** A server of `crewDir` on `database`, scanning for passed deadlines often so tests wait little after moving time. */
async function serve(crewDir: string, database: string, clock: () => Date): Promise<RunningServer> {
  const server = await startCrewd({
    crewDir,
    database,
    modelUrl: model.url,
    clock,
    env: { CREWD_CLAIM_SCAN_MS: '50' },
  });
  servers.push(server);
  return server;
}

async function pausedKickoff(server: RunningServer, product: string): Promise<string> {
  const kickoff = await apiClient(server.url).post('/kickoff', {
    inputs: { product, audience: 'buyers' },
    humanInputWebhook: { url: `${receiver.url}/${product}/review` },
  });
  expect(kickoff.status).toBe(200);
  await apiClient(server.url).waitForState(kickoff.body.kickoff_id as string, ['PAUSED']);
  return kickoff.body.kickoff_id as string;
}

describe('review deadlines', () => {
  it('shows the deadline while paused, approves when it passes, and tells the human-input webhook', async () => {
    const clock = movableClock();
    const server = await serve(crewWithDeadline('approve'), tempDatabase(), clock.now);
    const api = apiClient(server.url);
    const id = await pausedKickoff(server, 'kettles');

    const paused = await api.get(`/status/${id}`);
    expect(paused.body.pending_human_input.deadline).toEqual({
      at: expect.any(String) as string,
      is_approve: true,
      human_feedback: '',
    });
    const dueAt = Date.parse(paused.body.pending_human_input.deadline.at as string);
    expect(dueAt - Date.parse(paused.body.updated_at as string)).toBe(hour);

    clock.advance(hour);
    const done = await api.waitForState(id, ['SUCCESS', 'FAILED']);
    expect(done.body.state).toBe('SUCCESS');
    expect(done.body.reviews).toEqual([
      { task_id: 'draft', attempt: 1, is_approve: true, given_by: 'deadline' },
    ]);
    expect(done.body.tasks.map((task: { task_id: string }) => task.task_id)).toEqual([
      'gather',
      'draft',
      'publish',
    ]);

    const [requested, passed] = await receiver.waitFor('/kettles/review', 2);
    expect(requested?.body).toMatchObject({ event: 'human_input_requested', task_id: 'draft', attempt: 1 });
    expect(passed?.body).toMatchObject({
      event: 'human_input_deadline_passed',
      execution_id: id,
      task_id: 'draft',
      attempt: 1,
      is_approve: true,
      human_feedback: '',
    });
  });

  it('rejects with the configured feedback: the task runs again with it and asks for review again', async () => {
    const clock = movableClock();
    const server = await serve(
      crewWithDeadline('{reject: "Nobody answered; make it shorter."}'),
      tempDatabase(),
      clock.now,
    );
    const api = apiClient(server.url);
    const id = await pausedKickoff(server, 'toasters');

    clock.advance(hour);
    await receiver.waitFor('/toasters/review', 3);
    const again = await api.waitForState(id, ['PAUSED']);
    expect(again.body.pending_human_input).toMatchObject({ task_id: 'draft', attempt: 2 });
    expect(again.body.reviews).toEqual([
      { task_id: 'draft', attempt: 1, is_approve: false, given_by: 'deadline' },
    ]);
    const retried = model.requests.filter((request) =>
      JSON.stringify(request.body).includes('Nobody answered; make it shorter.'),
    );
    expect(retried.length).toBeGreaterThan(0);
  });

  it('answers after a restart a deadline that passed while the server was down', async () => {
    const clock = movableClock();
    const crewDir = crewWithDeadline('approve');
    const database = tempDatabase();
    const first = await serve(crewDir, database, clock.now);
    const id = await pausedKickoff(first, 'kayaks');
    await first.close();
    servers.splice(servers.indexOf(first), 1);

    clock.advance(3 * hour);
    const restarted = await serve(crewDir, database, clock.now);
    const done = await apiClient(restarted.url).waitForState(id, ['SUCCESS', 'FAILED']);
    expect(done.body.state).toBe('SUCCESS');
    expect(done.body.reviews).toEqual([
      { task_id: 'draft', attempt: 1, is_approve: true, given_by: 'deadline' },
    ]);
  });

  it('is answered once by two servers sharing the database', async () => {
    const clock = movableClock();
    const crewDir = crewWithDeadline('approve');
    const database = tempDatabase();
    const first = await serve(crewDir, database, clock.now);
    const second = await serve(crewDir, database, clock.now);
    const id = await pausedKickoff(first, 'canoes');

    clock.advance(hour);
    const done = await apiClient(second.url).waitForState(id, ['SUCCESS', 'FAILED']);
    expect(done.body.state).toBe('SUCCESS');
    expect(done.body.reviews).toHaveLength(1);
    const deliveries = await apiClient(first.url).get(`/executions/${id}/deliveries`);
    expect(
      deliveries.body.items.filter((item: { kind: string }) => item.kind === 'human_input'),
    ).toHaveLength(2);
  });

  it("leaves a review a person answered before its deadline to the person's answer", async () => {
    const clock = movableClock();
    const server = await serve(crewWithDeadline('{reject: "Too late."}'), tempDatabase(), clock.now);
    const api = apiClient(server.url);
    const id = await pausedKickoff(server, 'sledges');

    const resumed = await api.post('/resume', {
      execution_id: id,
      task_id: 'draft',
      human_feedback: 'Good as is.',
      is_approve: true,
    });
    expect(resumed.status).toBe(200);
    clock.advance(2 * hour);
    const done = await api.waitForState(id, ['SUCCESS', 'FAILED']);
    expect(done.body.reviews).toEqual([
      { task_id: 'draft', attempt: 1, is_approve: true, given_by: 'person' },
    ]);
    expect(receiver.on('/sledges/review').map((request) => request.body.event)).toEqual([
      'human_input_requested',
    ]);
  });
});

describe("a kickoff's own review deadline", () => {
  it("answers the execution's reviews with the kickoff's deadline where tasks.yaml has none", async () => {
    const clock = movableClock();
    const server = await serve(userCrew(join(crewsDir, 'review-crew')), tempDatabase(), clock.now);
    const api = apiClient(server.url);
    const kickoff = await api.post('/kickoff', {
      inputs: { product: 'lamps', audience: 'buyers' },
      humanInputDeadline: { after: '30m', onDeadline: { reject: 'Add the price.' } },
    });
    expect(kickoff.status).toBe(200);
    const id = kickoff.body.kickoff_id as string;
    const paused = await api.waitForState(id, ['PAUSED']);
    expect(paused.body.pending_human_input.deadline).toMatchObject({
      is_approve: false,
      human_feedback: 'Add the price.',
    });

    clock.advance(30 * 60_000);
    await until(async () => (await api.get(`/status/${id}`)).body.pending_human_input?.attempt === 2);
    const again = await api.get(`/status/${id}`);
    expect(again.body.reviews).toEqual([
      { task_id: 'draft', attempt: 1, is_approve: false, given_by: 'deadline' },
    ]);
  });

  it('refuses a deadline that is not a duration, or an outcome it does not know, with 400 and nothing started', async () => {
    const clock = movableClock();
    const server = await serve(userCrew(join(crewsDir, 'review-crew')), tempDatabase(), clock.now);
    const api = apiClient(server.url);
    for (const humanInputDeadline of [
      { after: 'soon', onDeadline: 'approve' },
      { after: '1h', onDeadline: 'ignore' },
      { after: '1h', onDeadline: { reject: '' } },
    ]) {
      const refused = await api.post('/kickoff', {
        inputs: { product: 'x', audience: 'y' },
        humanInputDeadline,
      });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: expect.any(String) as string, code: 'VALIDATION_ERROR' });
      expect(refused.body.message).toMatch(/humanInputDeadline/);
    }
    expect((await api.get('/executions')).body.items).toEqual([]);
  });
});
