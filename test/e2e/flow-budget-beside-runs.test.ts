import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PriceTable } from '../../src/llm/price-table.ts';
import type { RunningServer } from '../../src/main.ts';
import { startFakeOpenAI, type FakeOpenAIServer, type FakeReply } from '../support/fake-openai-server.ts';
import { bothStores } from '../support/both-stores.ts';
import { apiClient, startCrewd } from '../support/crewd.ts';
import { until } from '../support/until.ts';
import { userCrew } from '../support/user-crew.ts';

const flows = join(import.meta.dirname, 'flows');
const visits = join(mkdtempSync(join(tmpdir(), 'crewd-visits-')), 'visits.log');
/** Every model call reports this much: 1050 tokens, $1.05 at the test prices. */
const callUsage = { prompt_tokens: 1000, completion_tokens: 50 };
/** A dollar per thousand tokens, so the spend in dollars is easy to read. */
const testPrices: PriceTable = { costUsd: (_model, tokens) => (tokens.input + tokens.output) / 1000 };

let model: FakeOpenAIServer;
const servers: RunningServer[] = [];
const stores = bothStores();

/** While set, the left branch's last call (after its tool call) is held: the budget's pause stops it there. */
let holdLeft = false;
/** What the right branch's first call waits on before it answers; undefined: it answers at once. */
let rightHeldUntil: (() => Promise<unknown>) | undefined;

const messagesOf = (request: { body: { messages?: unknown } }): string =>
  JSON.stringify(request.body.messages ?? '');
const hasToolResult = (prompt: string): boolean => prompt.includes('"role":"tool"');
const steps = ['first', 'second', 'third'].flatMap((step) => [`Left ${step} step`, `Right ${step} step`]);
/** Requests whose messages mention `words` (and, when asked, carry a tool result). */
const callsFor = (words: string, withToolResult?: boolean): number =>
  model.requests.filter((request) => {
    const prompt = messagesOf(request);
    return (
      prompt.includes(words) && (withToolResult === undefined || hasToolResult(prompt) === withToolResult)
    );
  }).length;

function answer(request: { body: { messages?: unknown } }): FakeReply {
  const prompt = messagesOf(request);
  // The left branch's last task records a visit with its tool before it answers.
  if (prompt.includes('Left third step')) {
    if (!hasToolResult(prompt))
      return { toolCalls: [{ name: 'record_visit', arguments: { city: 'Lisbon' } }], usage: callUsage };
    if (holdLeft) return { heldUntil: new Promise(() => {}) };
    return { content: 'Left third done.', usage: callUsage };
  }
  const branch = /(Left|Right) (first|second|third) step/.exec(prompt);
  if (branch === null) return { content: 'Done.', usage: callUsage };
  const held = branch[1] === 'Right' && branch[2] === 'first' ? rightHeldUntil?.() : undefined;
  return {
    content: `${branch[1]} ${branch[2]} done.`,
    usage: callUsage,
    ...(held === undefined ? {} : { heldUntil: held }),
  };
}

beforeAll(async () => {
  // The fixture's tool runs in this process: it appends to the file VISIT_LOG names.
  process.env.VISIT_LOG = visits;
  model = await startFakeOpenAI({ respond: answer });
});

afterEach(async () => {
  holdLeft = false;
  rightHeldUntil = undefined;
  for (const server of servers.splice(0)) await server.close();
  await stores.dropAll();
});

afterAll(async () => {
  await model.close();
  delete process.env.VISIT_LOG;
});

async function serve(database: string): Promise<ReturnType<typeof apiClient>> {
  const server = await startCrewd({
    crewDir: userCrew(join(flows, 'side-by-side-flow')),
    database,
    modelUrl: model.url,
    prices: testPrices,
  });
  servers.push(server);
  return apiClient(server.url);
}

const visitsOf = (id: string): string[] =>
  existsSync(visits)
    ? readFileSync(visits, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith(`${id} `))
    : [];

describe.each(stores.cases)('a budget pause beside a running crew on %s', (_name, database) => {
  it('once extended, lets both branches go on from their own last completed steps', async () => {
    const api = await serve(await database());
    const before = Object.fromEntries(
      [...steps, 'Left third step with result'].map((step) => [
        step,
        step.endsWith('with result') ? callsFor('Left third step', true) : callsFor(step),
      ]),
    );
    const stopped = model.abandoned.length;
    // The left branch runs alone up to its last call, after its tool call, and waits on it there; only then does
    // the right branch's first call answer. The left branch's completed tasks (2100) and its last task's tool call
    // (1050) leave its last call within 4200 tokens; the right branch's first two calls bring the settled spend
    // to 4200 (the left's tool-calling answer is not settled until its task ends), so its third call would pass.
    holdLeft = true;
    rightHeldUntil = () =>
      until(() => callsFor('Left third step', true) === before['Left third step with result']! + 1);
    const started = await api.post('/kickoff', { inputs: {}, budget: { tokens: 4200 } });
    expect(started.status).toBe(200);
    const id = started.body.kickoff_id as string;

    const paused = await api.waitForState(id, ['PAUSED', 'SUCCESS', 'FAILED']);
    expect(paused.body.state).toBe('PAUSED');
    expect(paused.body.current_task).toBe('right');
    expect(paused.body.pending_human_input).toMatchObject({
      task_id: 'right',
      kind: 'budget',
      scope: 'execution',
      budget: { tokens: 4200 },
      spent: { tokens: 4200, cost_usd: 4.2, unpriced_requests: 0 },
    });
    // The left branch's call in flight was stopped by the pause; its tool call had completed.
    await until(() => model.abandoned.length === stopped + 1);
    expect(messagesOf(model.abandoned.at(-1)!)).toContain('Left third step');
    expect(visitsOf(id)).toEqual([`${id} Lisbon`]);
    // The right branch's third call was not made.
    expect(callsFor('Right third step')).toBe(before['Right third step']);
    holdLeft = false;
    rightHeldUntil = undefined;

    const resumed = await api.post('/resume', {
      execution_id: id,
      task_id: 'right',
      human_feedback: 'go on',
      is_approve: true,
    });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ status: 'resumed' });
    const done = await api.waitForState(id, ['SUCCESS', 'FAILED', 'PAUSED']);

    expect(done.body.state).toBe('SUCCESS');
    expect(done.body.result).toBe('Left third done. (4 calls) | Right third done. (3 calls)');
    // No completed model call of either branch is asked again.
    for (const step of ['Left first step', 'Left second step', 'Right first step', 'Right second step'])
      expect(callsFor(step), step).toBe(before[step]! + 1);
    expect(callsFor('Right third step')).toBe(before['Right third step']! + 1);
    // The left's last task: its tool-calling call once, then the call cut short by the pause and that call again.
    expect(callsFor('Left third step', false)).toBe(
      before['Left third step']! - before['Left third step with result']! + 1,
    );
    expect(callsFor('Left third step', true)).toBe(before['Left third step with result']! + 2);
    // The tool ran once.
    expect(visitsOf(id)).toEqual([`${id} Lisbon`]);
    // Seven calls answered, the one cut short not among them.
    expect(done.body.usage_metrics).toMatchObject({
      total_tokens: 7350,
      successful_requests: 7,
      total_cost_usd: 7.35,
      unpriced_requests: 0,
    });
    expect(done.body.budget).toEqual({ tokens: 8400 });
    expect(done.body.reviews).toEqual([
      expect.objectContaining({ task_id: 'right', is_approve: true, kind: 'budget' }),
    ]);
  });
});
