import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { startFakeOpenAI, type FakeOpenAIServer, type FakeReply } from '../support/fake-openai-server.ts';
import { apiClient, startCrewd, tempDatabase } from '../support/crewd.ts';
import { movableClock } from '../support/movable-clock.ts';
import { createTestDatabase } from '../support/postgres-database.ts';
import { until } from '../support/until.ts';
import { userCrew } from '../support/user-crew.ts';

const flows = join(import.meta.dirname, 'flows');
const visits = join(mkdtempSync(join(tmpdir(), 'crewd-visits-')), 'visits.log');
let model: FakeOpenAIServer;
const clock = movableClock();
const running: RunningServer[] = [];

/** While set, the walk's last call (after its tool call) is held: the review's pause stops it there. */
let holdWalk = false;
/** What the checker's call waits on before it answers; undefined: it answers at once. */
let checkHeldUntil: (() => Promise<unknown>) | undefined;
let checks = 0;

const messagesOf = (request: { body: { messages?: unknown } }): string =>
  JSON.stringify(request.body.messages ?? '');
const hasToolResult = (prompt: string): boolean => prompt.includes('"role":"tool"');
const walkSteps = ['Walk first step', 'Walk second step', 'Walk third step'] as const;
/** Requests whose messages mention `words` (and, when asked, carry a tool result). */
const callsFor = (words: string, withToolResult?: boolean): number =>
  model.requests.filter((request) => {
    const prompt = messagesOf(request);
    return (
      prompt.includes(words) && (withToolResult === undefined || hasToolResult(prompt) === withToolResult)
    );
  }).length;
const walkCalls = () => Object.fromEntries(walkSteps.map((step) => [step, callsFor(step)]));

function answer(request: { body: { messages?: unknown } }): FakeReply {
  const prompt = messagesOf(request);
  if (prompt.includes('Walk third step')) {
    if (!hasToolResult(prompt))
      return { toolCalls: [{ name: 'record_visit', arguments: { city: 'Lisbon' } }] };
    if (holdWalk) return { heldUntil: new Promise(() => {}) };
    return { content: 'Walk third done.' };
  }
  const walk = /Walk (first|second) step/.exec(prompt);
  if (walk !== null) return { content: `Walk ${walk[1]} done.` };
  if (prompt.includes('Check step')) {
    const held = checkHeldUntil?.();
    return { content: `Road open ${(checks += 1)}.`, ...(held === undefined ? {} : { heldUntil: held }) };
  }
  return { content: 'Done.' };
}

beforeAll(async () => {
  // The fixture's tool runs in this process: it appends to the file VISIT_LOG names.
  process.env.VISIT_LOG = visits;
  model = await startFakeOpenAI({ respond: answer });
});

afterAll(async () => {
  for (const server of running) await server.close();
  await model.close();
  delete process.env.VISIT_LOG;
});

async function serve(fixture: string, database: string): Promise<ReturnType<typeof apiClient>> {
  const server = await startCrewd({
    crewDir: userCrew(join(flows, fixture)),
    database,
    modelUrl: model.url,
    clock: clock.now,
    env: { CREWD_CLAIM_SCAN_MS: '50' },
  });
  running.push(server);
  return apiClient(server.url);
}

const visitsOf = (id: string): string[] =>
  existsSync(visits)
    ? readFileSync(visits, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith(`${id} `))
    : [];

/**
 * Kicks the flow off and waits for its review's pause, taken while the walk beside it has completed two tasks and a
 * tool call and waits on its last model call: that call is stopped by the pause. Resolves with the execution's id.
 */
async function pausedBesideTheWalk(
  api: ReturnType<typeof apiClient>,
  before: Record<string, number>,
  kickoff: Record<string, unknown> = {},
): Promise<string> {
  holdWalk = true;
  const stopped = model.abandoned.length;
  // The checker answers only once the walk waits on its last call, so the review pauses the flow right then.
  checkHeldUntil = () =>
    until(() => callsFor('Walk third step', true) === before['Walk third step with result']! + 1);
  const started = await api.post('/kickoff', { inputs: {}, ...kickoff });
  expect(started.status).toBe(200);
  const id = started.body.kickoff_id as string;
  const paused = await api.waitForState(id, ['PAUSED', 'FAILED']);
  expect(paused.body.state).toBe('PAUSED');
  // The walk's call in flight was stopped by the pause.
  await until(() => model.abandoned.length === stopped + 1);
  expect(messagesOf(model.abandoned.at(-1)!)).toContain('Walk third step');
  expect(visitsOf(id)).toEqual([`${id} Lisbon`]);
  holdWalk = false;
  checkHeldUntil = undefined;
  return id;
}

/** The walk went on from its last completed step: only the call the pause stopped is asked again. */
function expectWalkWentOn(id: string, before: Record<string, number>): void {
  const after = walkCalls();
  expect(after['Walk first step']).toBe(before['Walk first step']! + 1);
  expect(after['Walk second step']).toBe(before['Walk second step']! + 1);
  // Its tool call, the call cut short by the pause, and that call asked again.
  expect(after['Walk third step']).toBe(before['Walk third step']! + 3);
  expect(callsFor('Walk third step', false)).toBe(before['Walk third step without result']! + 1);
  // The tool ran once.
  expect(visitsOf(id)).toEqual([`${id} Lisbon`]);
}

function callsNow(): Record<string, number> {
  return {
    ...walkCalls(),
    'Walk third step with result': callsFor('Walk third step', true),
    'Walk third step without result': callsFor('Walk third step', false),
    'Check step': callsFor('Check step'),
  };
}

describe.each([['SQLite', () => Promise.resolve({ url: tempDatabase(), drop: () => Promise.resolve() })]])(
  'a review beside a running crew on %s',
  (_name, createDatabase) => {
    let api: ReturnType<typeof apiClient>;
    let routedApi: ReturnType<typeof apiClient>;
    let drop: () => Promise<void>;

    beforeAll(async () => {
      const database = await createDatabase();
      drop = database.drop;
      api = await serve('review-beside-flow', database.url);
      routedApi = await serve('routed-review-beside-flow', tempDatabase());
    });

    afterAll(async () => {
      await drop();
    });

    it('once approved, lets the crew its pause stopped go on from its last completed step', async () => {
      const before = callsNow();
      const id = await pausedBesideTheWalk(api, before);
      const approved = await api.post('/resume', {
        execution_id: id,
        task_id: 'check',
        human_feedback: 'Open.',
        is_approve: true,
      });
      expect(approved.body.status).toBe('resumed');
      const done = await api.waitForState(id, ['SUCCESS', 'FAILED']);
      expect(done.body.state).toBe('SUCCESS');
      expect(done.body.result).toBe(`Road open ${checks}. / Open. | Walk third done. (4 calls)`);
      expectWalkWentOn(id, before);
      // The reviewed method's action is not run again.
      expect(callsFor('Check step')).toBe(before['Check step']! + 1);
    });

    it('once rejected, runs the reviewed method anew with the feedback while the crew goes on', async () => {
      const before = callsNow();
      const id = await pausedBesideTheWalk(api, before);
      // The retried check answers once the walk has completed, so its second review stops nothing.
      checkHeldUntil = () =>
        until(async () => (await api.get(`/status/${id}`)).body.flow_methods?.includes('walk') === true);
      const rejected = await api.post('/resume', {
        execution_id: id,
        task_id: 'check',
        human_feedback: 'Look at the bridge too.',
        is_approve: false,
      });
      expect(rejected.body.status).toBe('retrying');
      await until(async () => (await api.get(`/status/${id}`)).body.pending_human_input?.attempt === 2);
      checkHeldUntil = undefined;
      expect(callsFor('Check step')).toBe(before['Check step']! + 2);
      expect(
        messagesOf(model.requests.filter((r) => messagesOf(r).includes('Check step')).at(-1)!),
      ).toContain('Look at the bridge too.');
      const approved = await api.post('/resume', {
        execution_id: id,
        task_id: 'check',
        human_feedback: 'Open now.',
        is_approve: true,
      });
      expect(approved.body.status).toBe('resumed');
      const done = await api.waitForState(id, ['SUCCESS', 'FAILED']);
      expect(done.body.state).toBe('SUCCESS');
      expect(done.body.result).toBe(`Road open ${checks}. / Open now. | Walk third done. (4 calls)`);
      expectWalkWentOn(id, before);
    });

    it('once its deadline approves it, lets the crew go on from its last completed step', async () => {
      const before = callsNow();
      const id = await pausedBesideTheWalk(api, before, {
        humanInputDeadline: { after: '30m', onDeadline: 'approve' },
      });
      clock.advance(30 * 60_000);
      const done = await api.waitForState(id, ['SUCCESS', 'FAILED']);
      expect(done.body.state).toBe('SUCCESS');
      expect(done.body.result).toBe(`Road open ${checks}. /  | Walk third done. (4 calls)`);
      expectWalkWentOn(id, before);
      expect(callsFor('Check step')).toBe(before['Check step']! + 1);
    });

    it('routed by the review, lets the crew its pause stopped go on from its last completed step', async () => {
      const before = callsNow();
      const id = await pausedBesideTheWalk(routedApi, before);
      const approved = await routedApi.post('/resume', {
        execution_id: id,
        task_id: 'check',
        human_feedback: 'open',
        is_approve: true,
      });
      expect(approved.body.status).toBe('resumed');
      const done = await routedApi.waitForState(id, ['SUCCESS', 'FAILED']);
      expect(done.body.state).toBe('SUCCESS');
      expect(done.body.result).toBe(`open: Road open ${checks}. | Walk third done. (4 calls)`);
      expectWalkWentOn(id, before);
      expect(callsFor('Check step')).toBe(before['Check step']! + 1);
    });
  },
);

describe('a review beside a running crew, answered on another process over PostgreSQL', () => {
  it('lets the crew go on there from its last completed step', async () => {
    const database = await createTestDatabase();
    const servers = running.length;
    try {
      const first = await serve('review-beside-flow', database.url);
      const second = await serve('review-beside-flow', database.url);
      const before = callsNow();
      const id = await pausedBesideTheWalk(first, before);
      const approved = await second.post('/resume', {
        execution_id: id,
        task_id: 'check',
        human_feedback: 'Open.',
        is_approve: true,
      });
      expect(approved.body.status).toBe('resumed');
      const done = await second.waitForState(id, ['SUCCESS', 'FAILED']);
      expect(done.body.state).toBe('SUCCESS');
      expect(done.body.result).toBe(`Road open ${checks}. / Open. | Walk third done. (4 calls)`);
      expectWalkWentOn(id, before);
    } finally {
      for (const server of running.splice(servers)) await server.close();
      await database.drop();
    }
  });
});
