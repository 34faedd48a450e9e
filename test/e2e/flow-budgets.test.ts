import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PriceTable } from '../../src/llm/price-table.ts';
import type { RunningServer } from '../../src/main.ts';
import { openStore } from '../../src/open-store.ts';
import { createTokenService, type NewToken } from '../../src/service/token-service.ts';
import { startFakeOpenAI, type FakeOpenAIServer, type FakeReply } from '../support/fake-openai-server.ts';
import { bothStores } from '../support/both-stores.ts';
import { apiClient, startCrewd, tempDatabase } from '../support/crewd.ts';
import { startScriptedReceiver } from '../support/scripted-receiver.ts';
import { userCrew } from '../support/user-crew.ts';

const flowsDir = join(import.meta.dirname, 'flows');
/** Every model call reports this much: 1050 tokens, $1.05 at the test prices. */
const callUsage = { prompt_tokens: 1000, completion_tokens: 50 };
/** A dollar per thousand tokens, so the spend in dollars is easy to read. */
const testPrices: PriceTable = { costUsd: (_model, tokens) => (tokens.input + tokens.output) / 1000 };

let model: FakeOpenAIServer;
const servers: RunningServer[] = [];
const stores = bothStores();

/** Each model call of the research flow names its step; the review flow's draft names its topic. */
function answer(request: { body: { messages?: unknown } }): FakeReply {
  const text = JSON.stringify(request.body.messages ?? '');
  if (text.includes('determine which outcome best matches'))
    return { content: '{"outcome": "needs_changes"}', usage: callUsage };
  if (text.includes('Research step')) return { content: 'Tea was first drunk in China.', usage: callUsage };
  if (text.includes('Outline step')) return { content: 'Origin; spread; today.', usage: callUsage };
  if (text.includes('Note step'))
    return { content: 'Tea came from China and spread everywhere.', usage: callUsage };
  return { content: 'A draft about tea.', usage: callUsage };
}

/** Model calls whose messages hold `words`. */
const callsFor = (words: string): number =>
  model.requests.filter((request) => JSON.stringify(request.body?.messages ?? '').includes(words)).length;

const stepCalls = () => ({
  research: callsFor('Research step'),
  outline: callsFor('Outline step'),
  note: callsFor('Note step'),
});

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: answer });
});

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await stores.dropAll();
});

afterAll(async () => {
  await model.close();
});

async function serve(flow: string, database = tempDatabase()) {
  const server = await startCrewd({
    crewDir: userCrew(join(flowsDir, flow)),
    database,
    modelUrl: model.url,
    prices: testPrices,
  });
  servers.push(server);
  return { server, api: apiClient(server.url), database };
}

async function kickedOff(api: ReturnType<typeof apiClient>, body: Record<string, unknown>) {
  const kickoff = await api.post('/kickoff', { inputs: { topic: 'tea' }, ...body });
  expect(kickoff.status).toBe(200);
  const id = kickoff.body.kickoff_id as string;
  const settled = await api.waitForState(id, ['PAUSED', 'SUCCESS', 'FAILED']);
  return { id, settled };
}

describe.each(stores.cases)('a served flow with a budget on %s', (_name, database) => {
  it('pauses before the call that could pass it, naming the method, and goes on from there once extended', async () => {
    const { api } = await serve('research-flow', await database());
    const before = stepCalls();
    // The research agent's call (1050) and the crew's outline call (2100 in all) fit; the note's would not.
    const { id, settled: paused } = await kickedOff(api, { budget: { tokens: 2000 } });

    expect(paused.body.state).toBe('PAUSED');
    expect(paused.body.status).toBe('Pending Human Input');
    expect(paused.body.current_task).toBe('write_up');
    expect(paused.body.pending_human_input).toMatchObject({
      task_id: 'write_up',
      kind: 'budget',
      scope: 'execution',
      budget: { tokens: 2000 },
      spent: { tokens: 2100, cost_usd: 2.1, unpriced_requests: 0 },
    });
    expect(paused.body.pending_human_input.output).toContain('2100 tokens');
    expect(paused.body.usage_metrics).toMatchObject({ total_tokens: 2100, total_cost_usd: 2.1 });
    expect(stepCalls()).toEqual({
      research: before.research + 1,
      outline: before.outline + 1,
      note: before.note,
    });

    const resumed = await api.post('/resume', {
      execution_id: id,
      task_id: 'write_up',
      human_feedback: 'go on',
      is_approve: true,
    });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({
      status: 'resumed',
      message: "Budget extended; method 'write_up' goes on",
    });
    const done = await api.waitForState(id, ['SUCCESS', 'FAILED', 'PAUSED']);

    expect(done.body.state).toBe('SUCCESS');
    expect(done.body.result).toBe('Tea came from China and spread everywhere.');
    expect(done.body.flow_methods).toEqual(['research', 'write_up']);
    // Neither the agent's call nor the crew's completed outline task is made again: only the note's call is new.
    expect(stepCalls()).toEqual({
      research: before.research + 1,
      outline: before.outline + 1,
      note: before.note + 1,
    });
    expect(done.body.usage_metrics).toMatchObject({
      total_tokens: 3150,
      successful_requests: 3,
      total_cost_usd: 3.15,
      unpriced_requests: 0,
    });
    expect(done.body.budget).toEqual({ tokens: 4000 });
    expect(done.body.reviews).toEqual([
      expect.objectContaining({ task_id: 'write_up', is_approve: true, kind: 'budget' }),
    ]);
  });
});

describe('a served flow with a budget', () => {
  it('ends REVOKED with the reason when the budget is not extended, making no further call', async () => {
    const { api } = await serve('research-flow');
    const before = stepCalls();
    const { id, settled: paused } = await kickedOff(api, { budget: { cost_usd: 1 } });
    expect(paused.body.pending_human_input).toMatchObject({
      task_id: 'write_up',
      kind: 'budget',
      budget: { cost_usd: 1 },
      spent: { tokens: 1050, cost_usd: 1.05 },
    });

    const answered = await api.post('/resume', {
      executionId: id,
      taskId: 'write_up',
      humanFeedback: 'too dear',
      isApprove: false,
    });
    expect(answered.status).toBe(200);
    const ended = await api.waitForState(id, ['REVOKED', 'SUCCESS', 'FAILED']);

    expect(ended.body.state).toBe('REVOKED');
    expect(ended.body.error).toBe('The budget was not extended: too dear');
    expect(ended.body.pending_human_input).toBeNull();
    expect(stepCalls()).toEqual({ ...before, research: before.research + 1 });
  });

  it('tells the human-input webhook that the pause is a budget, naming the method', async () => {
    const receiver = await startScriptedReceiver();
    try {
      const { api } = await serve('research-flow');
      const { id } = await kickedOff(api, {
        budget: { tokens: 1000 },
        humanInputWebhook: { url: `${receiver.url}/review` },
      });
      const [request] = await receiver.waitFor('/review', 1);

      expect(request!.body).toMatchObject({
        event: 'human_input_requested',
        execution_id: id,
        task_id: 'write_up',
        kind: 'budget',
        scope: 'execution',
        budget: { tokens: 1000 },
        spent: { tokens: 1050, cost_usd: 1.05, unpriced_requests: 0 },
      });
    } finally {
      await receiver.close();
    }
  });

  it("pauses on the token's daily budget, and goes on when it is extended", async () => {
    const served = await serve('research-flow');
    const budgeted = apiClient(
      served.server.url,
      await tokenOn(served.database, { kind: 'user', userId: 'carol', dailyBudget: { tokens: 2000 } }),
    );
    const { id, settled: paused } = await kickedOff(budgeted, {});
    expect(paused.body.pending_human_input).toMatchObject({
      task_id: 'write_up',
      kind: 'budget',
      scope: 'daily',
      budget: { tokens: 2000 },
      spent: { tokens: 2100 },
    });

    const resumed = await budgeted.post('/resume', {
      execution_id: id,
      task_id: 'write_up',
      human_feedback: '',
      is_approve: true,
    });
    expect(resumed.status).toBe(200);
    const done = await budgeted.waitForState(id, ['SUCCESS', 'FAILED', 'PAUSED']);
    expect(done.body.state).toBe('SUCCESS');
    expect(done.body.reviews).toEqual([expect.objectContaining({ task_id: 'write_up', kind: 'budget' })]);
  });

  it("checks the call that classifies a review's feedback, and classifies it once extended", async () => {
    const { api } = await serve('review-flow');
    // The draft's call (1050) passes 1000 tokens only once made; the review then waits for a person.
    const { id, settled: review } = await kickedOff(api, { budget: { tokens: 1000 } });
    expect(review.body.pending_human_input).toMatchObject({
      task_id: 'review',
      emit: ['approved', 'needs_changes'],
    });
    const classified = callsFor('determine which outcome best matches');

    const answered = await api.post('/resume', {
      execution_id: id,
      task_id: 'review',
      human_feedback: 'make it about coffee',
      is_approve: true,
    });
    expect(answered.status).toBe(200);
    // The answer moved it to PENDING: the next PAUSED is the budget's.
    const paused = await api.waitForState(id, ['PAUSED', 'SUCCESS', 'FAILED']);
    expect(paused.body.pending_human_input).toMatchObject({ task_id: 'review', kind: 'budget' });
    expect(callsFor('determine which outcome best matches')).toBe(classified);

    const extended = await api.post('/resume', {
      execution_id: id,
      task_id: 'review',
      human_feedback: '',
      is_approve: true,
    });
    expect(extended.status).toBe(200);
    const done = await api.waitForState(id, ['SUCCESS', 'FAILED', 'PAUSED']);
    expect(done.body.state).toBe('SUCCESS');
    expect(done.body.result).toBe('SENT BACK: make it about coffee');
    expect(callsFor('determine which outcome best matches')).toBe(classified + 1);
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
