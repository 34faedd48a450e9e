import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PriceTable } from '../../src/llm/price-table.ts';
import type { RunningServer } from '../../src/main.ts';
import { openStore } from '../../src/open-store.ts';
import { createTokenService, type NewToken } from '../../src/service/token-service.ts';
import {
  startFakeOpenAI,
  type FakeOpenAIServer,
  type RecordedRequest,
} from '../support/fake-openai-server.ts';
import {
  apiClient,
  crewsDir,
  spawnCrewd,
  startCrewd,
  tempDatabase,
  type CrewdProcess,
} from '../support/crewd.ts';
import { movableClock } from '../support/movable-clock.ts';
import { startScriptedReceiver } from '../support/scripted-receiver.ts';
import { userCrew } from '../support/user-crew.ts';

/** Every model call reports this much: the first call alone passes a budget of 1000 tokens. */
const callUsage = { prompt_tokens: 1000, completion_tokens: 50 };
/** A dollar per thousand tokens, so the spend in dollars is easy to read. */
const testPrices: PriceTable = { costUsd: (_model, tokens) => (tokens.input + tokens.output) / 1000 };

let model: FakeOpenAIServer;
const servers: RunningServer[] = [];
const processes: CrewdProcess[] = [];

const hasToolResult = (request: RecordedRequest): boolean =>
  (request.body?.messages as { role: string }[] | undefined)?.some((message) => message.role === 'tool') ??
  false;
const chatRequests = (): RecordedRequest[] =>
  model.requests.filter((request) => request.path.endsWith('/chat/completions'));

beforeAll(async () => {
  // The traveller calls its tool once, then answers.
  model = await startFakeOpenAI({
    respond: (request) =>
      hasToolResult(request)
        ? { content: 'The visit to Porto is recorded.', usage: callUsage }
        : { toolCalls: [{ name: 'record_visit', arguments: { city: 'Porto' } }], usage: callUsage },
  });
});

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const crewd of processes.splice(0)) crewd.child.kill('SIGKILL');
});

afterAll(async () => {
  await model.close();
});

interface Served {
  readonly server: RunningServer;
  readonly api: ReturnType<typeof apiClient>;
  readonly visitLog: string;
  readonly database: string;
}

/** The tool crew, copied where users keep crews, with `crewYaml` lines added to its crew.yaml. */
function toolCrew(crewYaml = ''): string {
  const dir = userCrew(join(crewsDir, 'tool-crew'));
  if (crewYaml !== '') appendFileSync(join(dir, 'crew.yaml'), crewYaml);
  return dir;
}

async function serve(crewDir = toolCrew(), clock?: () => Date): Promise<Served> {
  const visitLog = join(mkdtempSync(join(tmpdir(), 'crewd-visits-')), 'visits.log');
  process.env.VISIT_LOG = visitLog;
  const database = tempDatabase();
  const server = await startCrewd({ crewDir, database, modelUrl: model.url, prices: testPrices, clock });
  servers.push(server);
  return { server, api: apiClient(server.url), visitLog, database };
}

async function pausedOnBudget(api: ReturnType<typeof apiClient>, body: Record<string, unknown>) {
  const kickoff = await api.post('/kickoff', { inputs: { city: 'Porto' }, ...body });
  expect(kickoff.status).toBe(200);
  const id = kickoff.body.kickoff_id as string;
  const paused = await api.waitForState(id, ['PAUSED', 'SUCCESS', 'FAILED']);
  return { id, paused };
}

describe('budgets', () => {
  it('pauses before the next model call once a call with a tool in flight crosses the budget', async () => {
    const { api, visitLog } = await serve();
    const asked = chatRequests().length;
    const { id, paused } = await pausedOnBudget(api, { budget: { tokens: 1000 } });

    expect(paused.body.state).toBe('PAUSED');
    expect(paused.body.status).toBe('Pending Human Input');
    expect(paused.body.pending_human_input).toMatchObject({
      task_id: 'visit',
      attempt: 1,
      kind: 'budget',
      scope: 'execution',
      budget: { tokens: 1000 },
      spent: { tokens: 1050, cost_usd: 1.05, unpriced_requests: 0 },
    });
    expect(paused.body.pending_human_input.output).toContain('1050 tokens');
    // The tool the crossing call asked for ran and was recorded; the next model call was not made.
    expect(readFileSync(visitLog, 'utf8')).toBe(`${id} Porto\n`);
    expect(paused.body.last_step).toMatchObject({ tool: 'record_visit', result: 'Visit to Porto recorded.' });
    expect(chatRequests().length - asked).toBe(1);
    expect(paused.body.budget).toEqual({ tokens: 1000 });
  });

  it('goes on with the very call it stopped before when approved, repeating no model call or tool', async () => {
    const { api, visitLog } = await serve();
    const asked = chatRequests().length;
    const { id } = await pausedOnBudget(api, { budget: { tokens: 1000 } });

    const resumed = await api.post('/resume', {
      execution_id: id,
      task_id: 'visit',
      human_feedback: 'go on',
      is_approve: true,
    });
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).toBe('resumed');
    const done = await api.waitForState(id, ['SUCCESS', 'FAILED', 'PAUSED']);

    expect(done.body.state).toBe('SUCCESS');
    expect(done.body.result).toBe('The visit to Porto is recorded.');
    const ours = chatRequests().slice(asked);
    expect(ours).toHaveLength(2);
    expect(hasToolResult(ours[1]!)).toBe(true);
    expect(readFileSync(visitLog, 'utf8')).toBe(`${id} Porto\n`);
    expect(done.body.usage_metrics).toMatchObject({
      total_tokens: 2100,
      successful_requests: 2,
      total_cost_usd: 2.1,
      unpriced_requests: 0,
    });
    // The approval extended the budget by its first amount.
    expect(done.body.budget).toEqual({ tokens: 2000 });
    expect(done.body.reviews).toEqual([
      { task_id: 'visit', attempt: 1, is_approve: true, given_by: 'person', kind: 'budget' },
    ]);
  });

  it('ends REVOKED with the reason when the budget is not extended', async () => {
    const { api } = await serve();
    const asked = chatRequests().length;
    const { id } = await pausedOnBudget(api, { budget: { cost_usd: 0.5 } });

    const answered = await api.post('/resume', {
      executionId: id,
      taskId: 'visit',
      humanFeedback: 'over the monthly allowance',
      isApprove: false,
    });
    expect(answered.status).toBe(200);
    const ended = await api.waitForState(id, ['REVOKED', 'SUCCESS', 'FAILED']);

    expect(ended.body.state).toBe('REVOKED');
    expect(ended.body.error).toBe('The budget was not extended: over the monthly allowance');
    expect(ended.body.pending_human_input).toBeNull();
    expect(chatRequests().length - asked).toBe(1);
  });

  it("takes crew.yaml's budget when the kickoff gives none", async () => {
    const { api } = await serve(toolCrew('budget:\n  tokens: 1000\n'));
    const { paused } = await pausedOnBudget(api, {});

    expect(paused.body.state).toBe('PAUSED');
    expect(paused.body.pending_human_input).toMatchObject({ kind: 'budget', budget: { tokens: 1000 } });
  });

  it('runs to the end without pausing while the budget holds', async () => {
    const { api } = await serve(toolCrew('budget:\n  tokens: 1000\n'));
    const { paused } = await pausedOnBudget(api, { budget: { tokens: 5000, costUsd: 10 } });

    expect(paused.body.state).toBe('SUCCESS');
    expect(paused.body.budget).toEqual({ tokens: 5000, cost_usd: 10 });
  });

  it.each([
    [{ tokens: -5 }, 'budget.tokens'],
    [{ tokens: 'many' }, 'budget.tokens'],
    [{ tokens: 1.5 }, 'budget.tokens'],
    [{ cost_usd: -1 }, 'budget.cost_usd'],
    [{ costUsd: 'a dollar' }, 'budget.costUsd'],
    [{}, 'budget'],
  ])('refuses a budget of %j with 400 naming the field', async (budget, field) => {
    const { api } = await serve();
    const response = await api.post('/kickoff', { inputs: { city: 'Porto' }, budget });

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'Invalid Request', code: 'VALIDATION_ERROR' });
    expect(response.body.details.fields[0].field).toBe(field);
  });

  it('tells the human-input webhook that the pause is a budget, with the spend', async () => {
    const receiver = await startScriptedReceiver();
    try {
      const { api } = await serve();
      const { id } = await pausedOnBudget(api, {
        budget: { tokens: 1000 },
        humanInputWebhook: { url: `${receiver.url}/review` },
      });
      const [request] = await receiver.waitFor('/review', 1);

      expect(request!.body).toMatchObject({
        event: 'human_input_requested',
        execution_id: id,
        task_id: 'visit',
        attempt: 1,
        kind: 'budget',
        scope: 'execution',
        budget: { tokens: 1000 },
        spent: { tokens: 1050, cost_usd: 1.05, unpriced_requests: 0 },
      });
    } finally {
      await receiver.close();
    }
  });

  it("pauses the executions of a token past its daily budget, and starts the next day's afresh", async () => {
    const clock = movableClock();
    // Noon (UTC) tomorrow: the day does not turn while the first executions run.
    const now = clock.now();
    const noon = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1, 12);
    clock.advance(noon - now.getTime());
    const served = await serve(toolCrew(), clock.now);
    const budgeted = apiClient(
      served.server.url,
      await tokenOn(served.database, { kind: 'user', userId: 'carol', dailyBudget: { tokens: 3000 } }),
    );
    const other = apiClient(
      served.server.url,
      await tokenOn(served.database, { kind: 'user', userId: 'dan' }),
    );

    // 2100 tokens: the first execution fits the day's 3000.
    const first = await pausedOnBudget(budgeted, {});
    expect(first.paused.body.state).toBe('SUCCESS');
    // Another token's executions spend nothing of it.
    expect((await pausedOnBudget(other, {})).paused.body.state).toBe('SUCCESS');
    // The second one's first call takes the day to 3150: it pauses before its next.
    const second = await pausedOnBudget(budgeted, {});
    expect(second.paused.body.state).toBe('PAUSED');
    expect(second.paused.body.pending_human_input).toMatchObject({
      kind: 'budget',
      scope: 'daily',
      budget: { tokens: 3000 },
      spent: { tokens: 3150 },
    });

    clock.advance(24 * 60 * 60 * 1000);
    const nextDay = await pausedOnBudget(budgeted, {});
    expect(nextDay.paused.body.state).toBe('SUCCESS');
    const resumed = await budgeted.post('/resume', {
      execution_id: second.id,
      task_id: 'visit',
      human_feedback: '',
      is_approve: true,
    });
    expect(resumed.status).toBe(200);
    expect((await budgeted.waitForState(second.id, ['SUCCESS', 'FAILED', 'PAUSED'])).body.state).toBe(
      'SUCCESS',
    );
  });

  it("answers 404 to a user who resumes another user's budget pause", async () => {
    const served = await serve();
    const newToken = (token: NewToken): Promise<string> => tokenOn(served.database, token);
    const alice = apiClient(served.server.url, await newToken({ kind: 'user', userId: 'alice' }));
    const bob = apiClient(served.server.url, await newToken({ kind: 'user', userId: 'bob' }));
    const { id } = await pausedOnBudget(alice, { budget: { tokens: 1000 } });

    const answer = { execution_id: id, task_id: 'visit', human_feedback: '', is_approve: true };
    const refused = await bob.post('/resume', answer);
    expect(refused.status).toBe(404);
    expect((await bob.get(`/status/${id}`)).status).toBe(404);
    expect((await alice.get(`/status/${id}`)).body.state).toBe('PAUSED');

    expect((await alice.post('/resume', answer)).status).toBe(200);
    expect((await alice.waitForState(id, ['SUCCESS', 'FAILED'])).body.state).toBe('SUCCESS');
  });

  it('resumes a budget pause in a new process after the one that paused was killed', async () => {
    const crewDir = toolCrew();
    const database = tempDatabase();
    const visitLog = join(mkdtempSync(join(tmpdir(), 'crewd-visits-')), 'visits.log');
    const start = async (): Promise<CrewdProcess> => {
      const crewd = await spawnCrewd({
        crewDir,
        database,
        modelUrl: model.url,
        env: { VISIT_LOG: visitLog },
      });
      processes.push(crewd);
      return crewd;
    };
    const first = await start();
    const asked = chatRequests().length;
    const { id, paused } = await pausedOnBudget(apiClient(first.url), { budget: { tokens: 1000 } });
    expect(paused.body.state).toBe('PAUSED');
    first.child.kill('SIGKILL');
    await first.exited;

    const second = apiClient((await start()).url);
    const resumed = await second.post('/resume', {
      execution_id: id,
      task_id: 'visit',
      human_feedback: '',
      is_approve: true,
    });
    expect(resumed.status).toBe(200);
    const done = await second.waitForState(id, ['SUCCESS', 'FAILED', 'PAUSED']);

    expect(done.body.state).toBe('SUCCESS');
    expect(chatRequests().length - asked).toBe(2);
    expect(readFileSync(visitLog, 'utf8')).toBe(`${id} Porto\n`);
    // The bundled price table has no price for the test model: its cost is unknown, its tokens still count.
    expect(done.body.usage_metrics).toMatchObject({
      total_tokens: 2100,
      total_cost_usd: null,
      unpriced_requests: 2,
    });
  });
});

/** A token made as `crewd tokens create` makes it, on the server's database. */
async function tokenOn(database: string, token: NewToken): Promise<string> {
  const store = await openStore(database);
  try {
    return (await createTokenService({ store, clock: () => new Date() }).create(token)).secret;
  } finally {
    await store.close();
  }
}
