import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { openStore } from '../../src/open-store.ts';
import { createTokenService, type NewToken } from '../../src/service/token-service.ts';
import { runCrewd } from '../cli/crewd-command.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { numberedAnswers } from '../support/model-requests.ts';
import { apiClient, crewsDir, startCrewd, tempDatabase, testToken } from '../support/crewd.ts';
import { movableClock, type MovableClock } from '../support/movable-clock.ts';
import { until } from '../support/until.ts';
import { userCrew } from '../support/user-crew.ts';

// Schedules, triggers, MCP, A2A and review deadlines of a server of two crews: each answers for the crew whose base
// URL it is under, and the second crew's work is that crew's, not the first's.

let model: FakeOpenAIServer;
let crewd: RunningServer;
let database: string;
let clock: MovableClock;
const hour = 3_600_000;
const dayMs = 24 * hour;
const briefInputs = { product: 'kettles', audience: 'buyers' };

/** The review crew, its `draft` review approved once an hour has passed. */
function reviewCrewWithDeadline(): string {
  const dir = userCrew(join(crewsDir, 'review-crew'));
  const tasks = join(dir, 'tasks.yaml');
  const draft = '  human_input: true\n';
  const text = readFileSync(tasks, 'utf8');
  writeFileSync(
    tasks,
    text.replace(draft, `${draft}  human_input_deadline: 1h\n  human_input_on_deadline: approve\n`),
  );
  return dir;
}

/** A token made as `crewd tokens create` makes it, on the server's database. */
async function newToken(token: NewToken): Promise<string> {
  const store = await openStore(database);
  try {
    return (await createTokenService({ store, clock: () => new Date() }).create(token)).secret;
  } finally {
    await store.close();
  }
}

const org = (base: string) => apiClient(`${crewd.url}${base}`);

async function executionsWhere(base: string, match: (meta: Record<string, unknown> | null) => boolean) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads response fields
  const page = (await org(base).get('/executions?limit=100')).body as { items: any[] };
  return page.items.filter((execution) => match(execution.meta as Record<string, unknown> | null));
}

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: numberedAnswers() });
  database = tempDatabase();
  // A trigger of crew b, made on the database before the server starts, as `crewd triggers create` is used.
  const created = await runCrewd([
    'triggers',
    'create',
    'orders',
    '--crew',
    'b',
    '--inputs',
    JSON.stringify(briefInputs),
    '--database',
    database,
  ]);
  expect(created.code).toBe(0);
  // One kept, as before servers named their crews, under the crew's own name.
  const kept = await runCrewd([
    'triggers',
    'create',
    'kept',
    '--crew',
    'review-crew',
    '--inputs',
    JSON.stringify(briefInputs),
    '--database',
    database,
  ]);
  expect(kept.code).toBe(0);
  clock = movableClock();
  const plain = userCrew(join(crewsDir, 'plain-crew'));
  crewd = await startCrewd({
    crewDir: plain,
    modelUrl: model.url,
    database,
    clock: clock.now,
    schedulePollMs: 20,
    env: { CREWD_CLAIM_SCAN_MS: '50' },
    crews: [
      { name: 'a', dir: plain },
      { name: 'b', dir: reviewCrewWithDeadline() },
    ],
  });
});

afterAll(async () => {
  await crewd.close();
  await model.close();
});

describe('schedules of a server of several crews', () => {
  it('starts crew b from a schedule made under /crews/b/schedules, and keeps it out of crew a', async () => {
    // Crew b's inputs, which crew a would refuse.
    const refused = await org('/crews/a').post('/schedules', { cron: '0 3 * * *', inputs: briefInputs });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      error: expect.any(String) as string,
      code: expect.any(String) as string,
    });

    const created = await org('/crews/b').post('/schedules', {
      cron: '0 3 * * *',
      timezone: 'UTC',
      name: 'nightly briefs',
      inputs: briefInputs,
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect((await org('/crews/a').get('/schedules')).body.schedules).toEqual([]);
    expect((await org('/crews/a').get(`/schedules/${id}`)).status).toBe(404);

    // To just past the next 03:00 UTC.
    const now = clock.now();
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 3));
    if (next.getTime() <= now.getTime()) next.setTime(next.getTime() + dayMs);
    clock.advance(next.getTime() - now.getTime() + 1000);

    const scheduled = (meta: Record<string, unknown> | null) =>
      (meta?.schedule as { id?: string } | undefined)?.id === id;
    await until(async () => (await executionsWhere('/crews/b', scheduled)).length === 1);
    const [execution] = await executionsWhere('/crews/b', scheduled);
    // Crew b's review crew runs until its review: crew a's tasks would not pause.
    const paused = await org('/crews/b').waitForState(execution.kickoff_id as string, ['PAUSED']);
    expect(paused.body.pending_human_input.task_id).toBe('draft');
    expect(await executionsWhere('/crews/a', scheduled)).toEqual([]);
  });
});

describe('triggers of a server of several crews', () => {
  it('starts crew b from its trigger, and refuses a token limited to crew a there', async () => {
    const onlyA = await newToken({ kind: 'org', crews: ['a'] });
    const body = { order: 4217 };
    const limited = await apiClient(`${crewd.url}/crews/b`, onlyA).post('/triggers/orders', body);
    expect(limited.status).toBe(401);
    expect(limited.body).toMatchObject({ error: 'Unauthorized', message: 'Invalid or missing bearer token' });
    // Crew b's trigger is not crew a's.
    expect((await org('/crews/a').post('/triggers/orders', body)).status).toBe(404);

    const fired = await org('/crews/b').post('/triggers/orders', body);
    expect(fired.status).toBe(200);
    const id = fired.body.kickoff_id as string;
    const paused = await org('/crews/b').waitForState(id, ['PAUSED']);
    expect(paused.body.meta).toMatchObject({ trigger: 'orders' });
    expect((await org('/crews/a').get(`/status/${id}`)).status).toBe(404);
  });

  it("answers at crew b's base URL a trigger kept under the crew's own name", async () => {
    const fired = await org('/crews/b').post('/triggers/kept', { order: 1 });
    expect(fired.status).toBe(200);
    const paused = await org('/crews/b').waitForState(fired.body.kickoff_id as string, ['PAUSED']);
    expect(paused.body.meta).toMatchObject({ trigger: 'kept' });
    expect((await org('/crews/a').post('/triggers/kept', { order: 2 })).status).toBe(404);
  });
});

describe('the MCP server of a server of several crews', () => {
  async function toolsAt(base: string) {
    const client = new Client({ name: 'crewd-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${crewd.url}${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${testToken}` } },
    });
    await client.connect(transport);
    try {
      return (await client.listTools()).tools;
    } finally {
      await client.close();
    }
  }

  it("lists crew b's inputs as kickoff's arguments at /crews/b/mcp, and crew a's at /crews/a/mcp", async () => {
    const kickoffB = (await toolsAt('/crews/b')).find((tool) => tool.name === 'kickoff')!;
    expect(kickoffB.description).toContain('review-crew');
    expect(kickoffB.inputSchema.required).toEqual(['product', 'audience']);
    const kickoffA = (await toolsAt('/crews/a')).find((tool) => tool.name === 'kickoff')!;
    expect(kickoffA.inputSchema.required).toEqual(['topic']);
  });

  it('refuses a token limited to crew a at /crews/b/mcp with the 401 body', async () => {
    const onlyA = await newToken({ kind: 'org', crews: ['a'] });
    const response = await fetch(`${crewd.url}/crews/b/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${onlyA}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({
      error: 'Unauthorized',
      code: expect.any(String) as string,
    });
  });
});

describe('the A2A agent of a server of several crews', () => {
  it("describes crew b under /crews/b/, with URLs under crew b's base URL", async () => {
    const response = await fetch(`${crewd.url}/crews/b/.well-known/agent-card.json`);
    expect(response.status).toBe(200);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads the card's fields
    const card = (await response.json()) as any;
    expect(card).toMatchObject({ name: 'review-crew', url: `${crewd.url}/crews/b/a2a` });
    expect(card.skills).toHaveLength(1);
    expect(card.skills[0].description).toContain('product, audience');

    const cardA = await fetch(`${crewd.url}/crews/a/.well-known/agent-card.json`);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads the card's fields
    expect(((await cardA.json()) as any).url).toBe(`${crewd.url}/crews/a/a2a`);
    // The root of several crews is no one agent.
    const root = await fetch(`${crewd.url}/.well-known/agent-card.json`);
    expect(root.status).toBe(404);
  });
});

describe('review deadlines of a server of several crews', () => {
  it('answers the deadline of a review of crew b, the second crew served', async () => {
    const kickoff = await org('/crews/b').post('/kickoff', {
      inputs: { product: 'lamps', audience: 'shops' },
    });
    expect(kickoff.status).toBe(200);
    const id = kickoff.body.kickoff_id as string;
    const paused = await org('/crews/b').waitForState(id, ['PAUSED']);
    expect(paused.body.pending_human_input.deadline).toMatchObject({ is_approve: true });

    clock.advance(hour);
    const done = await org('/crews/b').waitForState(id, ['SUCCESS', 'FAILED']);
    expect(done.body.state).toBe('SUCCESS');
    expect(done.body.reviews).toEqual([
      { task_id: 'draft', attempt: 1, is_approve: true, given_by: 'deadline' },
    ]);
    expect(done.body.tasks.map((task: { task_id: string }) => task.task_id)).toEqual([
      'gather',
      'draft',
      'publish',
    ]);
  });
});
