import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { createTokenService } from '../../src/service/token-service.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { apiClient, crewsDir, startCrewd, tempDatabase, testToken } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { HeldPrompts } from '../support/held-prompts.ts';
import { heldNumberedAnswers } from '../support/model-requests.ts';
import { until } from '../support/until.ts';
import { callMcpTool, connectMcp, errorBody, structured } from '../support/mcp-client.ts';
import { userCrew } from '../support/user-crew.ts';

const held = new HeldPrompts();
let model: FakeOpenAIServer;
/** The three-task crew with input `topic`. */
let plain: RunningServer;
/** gather, draft (human input), publish; inputs `product` and `audience`. */
let review: RunningServer;
let reviewStore: Store;
const clients: Client[] = [];

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: heldNumberedAnswers(held) });
  plain = await startCrewd({ crewDir: userCrew(join(crewsDir, 'plain-crew')), modelUrl: model.url });
  const database = tempDatabase();
  review = await startCrewd({
    crewDir: userCrew(join(crewsDir, 'review-crew')),
    database,
    modelUrl: model.url,
  });
  // User tokens are made from the command line against the server's database.
  reviewStore = await openSqliteStore(database);
});

afterAll(async () => {
  held.letAllGo();
  for (const client of clients) await client.close();
  await plain.close();
  await review.close();
  await reviewStore.close();
  await model.close();
});

async function connect(server: RunningServer, token: string = testToken): Promise<Client> {
  const client = await connectMcp(server.url, token);
  clients.push(client);
  return client;
}

async function userToken(userId: string): Promise<string> {
  const tokens = createTokenService({ store: reviewStore, clock: () => new Date() });
  return (await tokens.create({ kind: 'user', userId })).secret;
}

const call = callMcpTool;

/** Long enough for any machine: the wait ends when the execution settles, not when this passes. */
const waitLong = { wait_seconds: 300 };

describe('the MCP server at {base_url}/mcp', () => {
  it("lists kickoff with the crew's inputs as its schema, and status, resume and cancel", async () => {
    const client = await connect(review);
    const { tools } = await client.listTools();

    expect(tools.map((tool) => tool.name).sort()).toEqual(['cancel', 'kickoff', 'resume', 'status']);
    const kickoff = tools.find((tool) => tool.name === 'kickoff')!;
    expect(kickoff.description).toContain('review-crew');
    expect(Object.keys(kickoff.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['audience', 'product', 'wait_seconds']),
    );
    expect(kickoff.inputSchema.required).toEqual(['product', 'audience']);
    expect(kickoff.outputSchema?.properties).toHaveProperty('pending_human_input');
    const resume = tools.find((tool) => tool.name === 'resume')!;
    expect(resume.inputSchema.required).toEqual(
      expect.arrayContaining(['execution_id', 'task_id', 'human_feedback', 'is_approve']),
    );
    const status = tools.find((tool) => tool.name === 'status')!;
    expect(status.inputSchema.required).toEqual(['kickoff_id']);
    expect(Object.keys(status.inputSchema.properties ?? {})).toEqual(['kickoff_id', 'wait_seconds']);
    expect(status.annotations?.readOnlyHint).toBe(true);
  });

  it('kicks off, waits for the result and answers what GET /status answers', async () => {
    const client = await connect(plain);
    const result = await call(client, 'kickoff', { topic: 'otters', ...waitLong });

    const view = structured(result);
    expect(view.state).toBe('SUCCESS');
    expect(view.result).toEqual(expect.stringMatching(/^Answer number \d+\.$/));
    expect(view.tasks.map((task: { task_id: string }) => task.task_id)).toEqual([
      'outline',
      'note',
      'summary',
    ]);
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(view);
    const api = apiClient(plain.url);
    const status = await api.get(`/status/${view.kickoff_id}`);
    expect({ ...status.body, execution_time: null }).toEqual({ ...view, execution_time: null });
    // An ordinary execution: listed with the others.
    const listed = await api.get('/executions?state=SUCCESS');
    expect(listed.body.items.map((item: { kickoff_id: string }) => item.kickoff_id)).toContain(
      view.kickoff_id,
    );
    // …and streamed: the finished execution's event log ends the stream with its end.
    const events = await api.get(`/executions/${view.kickoff_id}/events`);
    expect(events.status).toBe(200);
    expect(events.body).toMatch(/event: ?task-start[\s\S]*event: ?execution-end/);
  });

  it('sends progress notifications, ever increasing, while the execution runs', async () => {
    // The first task's model call waits until the first notification, so the whole run happens while the tool waits.
    held.hold('Outline a note about herons');
    const client = await connect(plain);
    const updates: Progress[] = [];
    const result = await call(client, 'kickoff', { topic: 'herons', ...waitLong }, (update) => {
      updates.push(update);
      held.letGo('Outline a note about herons');
    });

    expect(structured(result).state).toBe('SUCCESS');
    const values = updates.map((update) => update.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
    expect(updates[0]).toMatchObject({ progress: 0, total: 3 });
    expect(updates.at(-1)).toMatchObject({ progress: 3, total: 3 });
    const messages = updates.map((update) => update.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        'Task outline started (1 of 3)',
        'Task note finished (2 of 3)',
        'Task summary finished (3 of 3)',
      ]),
    );
  });

  it('answers at once with the id and state when told not to wait, and status follows it', async () => {
    held.hold('Outline a note about puffins');
    const client = await connect(plain);
    const started = structured(await call(client, 'kickoff', { topic: 'puffins', wait_seconds: 0 }));

    expect(started.kickoff_id).toEqual(expect.any(String));
    expect(['PENDING', 'RUNNING']).toContain(started.state);
    held.letGo('Outline a note about puffins');
    await apiClient(plain.url).waitForState(started.kickoff_id as string, ['SUCCESS']);
    const done = structured(await call(client, 'status', { kickoff_id: started.kickoff_id }));
    expect(done).toMatchObject({ kickoff_id: started.kickoff_id, state: 'SUCCESS' });
  });

  it('answers a paused execution with its pending review, and resume finishes it', async () => {
    const client = await connect(review);
    const paused = structured(
      await call(client, 'kickoff', { product: 'kettles', audience: 'cafes', ...waitLong }),
    );

    expect(paused.state).toBe('PAUSED');
    expect(paused.status).toBe('Pending Human Input');
    expect(paused.pending_human_input).toEqual({ task_id: 'draft', output: expect.any(String), attempt: 1 });

    const retried = structured(
      await call(client, 'resume', {
        execution_id: paused.kickoff_id,
        task_id: 'draft',
        human_feedback: 'Mention the warranty.',
        is_approve: false,
        ...waitLong,
      }),
    );
    expect(retried.status).toBe('retrying');
    expect(retried.execution).toMatchObject({
      state: 'PAUSED',
      pending_human_input: { task_id: 'draft', attempt: 2 },
    });

    const approved = structured(
      await call(client, 'resume', {
        execution_id: paused.kickoff_id,
        task_id: 'draft',
        human_feedback: 'Good.',
        is_approve: true,
        ...waitLong,
      }),
    );
    expect(approved.status).toBe('resumed');
    expect(approved.execution.state).toBe('SUCCESS');
    expect(approved.execution.tasks.map((task: { task_id: string }) => task.task_id)).toEqual([
      'gather',
      'draft',
      'publish',
    ]);
    const status = await apiClient(review.url).get(`/status/${paused.kickoff_id}`);
    expect(status.body.state).toBe('SUCCESS');
  });

  it("refuses a review answer for a task that is not waiting, with the contract's message", async () => {
    const client = await connect(review);
    const paused = structured(
      await call(client, 'kickoff', { product: 'lamps', audience: 'shops', ...waitLong }),
    );

    const wrongTask = await call(client, 'resume', {
      execution_id: paused.kickoff_id,
      task_id: 'gather',
      human_feedback: 'Fine.',
      is_approve: true,
    });
    expect(errorBody(wrongTask)).toEqual({
      error: 'Invalid Request',
      message: 'Execution is not in pending human input state',
      code: 'NOT_PENDING_HUMAN_INPUT',
    });
    // Nothing was lost: the execution still waits for its review.
    const still = structured(await call(client, 'status', { kickoff_id: paused.kickoff_id }));
    expect(still.state).toBe('PAUSED');
  });

  it('answers an unknown execution as not found, and bad arguments as a tool error', async () => {
    const client = await connect(review);

    expect(errorBody(await call(client, 'status', { kickoff_id: 'no-such-execution' }))).toEqual({
      error: 'Not Found',
      message: expect.any(String),
      code: 'NOT_FOUND',
    });
    expect(errorBody(await call(client, 'kickoff', { product: 'vases' }))).toEqual({
      error: 'Validation Error',
      message: 'Missing required inputs',
      code: 'MISSING_INPUTS',
      details: { missing_inputs: ['audience'] },
    });
    const badWait = await call(client, 'kickoff', {
      product: 'vases',
      audience: 'florists',
      wait_seconds: -1,
    });
    expect(badWait.isError).toBe(true);
    expect(JSON.stringify(badWait.content)).toContain('wait_seconds');
    expect(JSON.stringify(badWait.content)).not.toMatch(/\bat .*\.[jt]s:\d+/);
  });

  it('lets a user token reach only the executions its user started, here as everywhere', async () => {
    const alice = await connect(review, await userToken('alice'));
    const bob = await connect(review, await userToken('bob'));
    const paused = structured(
      await call(alice, 'kickoff', { product: 'stools', audience: 'bars', ...waitLong }),
    );
    expect(paused.state).toBe('PAUSED');

    const notFound = { error: 'Not Found', message: expect.any(String), code: 'NOT_FOUND' };
    expect(errorBody(await call(bob, 'status', { kickoff_id: paused.kickoff_id }))).toEqual(notFound);
    const answered = await call(bob, 'resume', {
      execution_id: paused.kickoff_id,
      task_id: 'draft',
      human_feedback: 'Ship it.',
      is_approve: true,
    });
    expect(errorBody(answered)).toEqual(notFound);
    // Bob's answer changed nothing; Alice and the organization still see the execution waiting.
    expect(structured(await call(alice, 'status', { kickoff_id: paused.kickoff_id })).state).toBe('PAUSED');
    const org = await connect(review);
    expect(structured(await call(org, 'status', { kickoff_id: paused.kickoff_id })).state).toBe('PAUSED');
  });

  it('ends a waiting call with the 401 body once its token is revoked', async () => {
    const tokens = createTokenService({ store: reviewStore, clock: () => new Date() });
    const carol = await tokens.create({ kind: 'user', userId: 'carol' });
    held.hold('List three facts about pianos');
    const client = await connect(review, carol.secret);
    const waiting = call(client, 'kickoff', { product: 'pianos', audience: 'schools', ...waitLong });
    await until(() =>
      model.requests.some((request) => JSON.stringify(request.body).includes('facts about pianos')),
    );

    await tokens.revoke(carol.record.id);
    expect(errorBody(await waiting)).toEqual({
      error: 'Unauthorized',
      message: 'Invalid or missing bearer token',
      code: 'UNAUTHORIZED',
    });
    held.letGo('List three facts about pianos');
  });

  it('stays out of the REST API description, which describes JSON routes only', async () => {
    const document = (await apiClient(review.url, null).get('/openapi.json')).body;
    expect(document.paths['/kickoff']).toBeDefined();
    expect(Object.keys(document.paths).filter((route) => route.includes('mcp'))).toEqual([]);
  });

  it('refuses requests without a valid bearer token with the contract 401 body', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const refused: Record<string, string>[] = [{}, { authorization: 'Bearer not-a-token' }];
    for (const headers of refused) {
      const response = await fetch(`${review.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(initialize),
      });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({
        error: 'Unauthorized',
        message: 'Invalid or missing bearer token',
        code: 'UNAUTHORIZED',
      });
    }
    // Without sessions there is no stream to open: a token gets 405, in the error shape, and no token 401.
    const stream = await fetch(`${review.url}/mcp`, {
      headers: { authorization: `Bearer ${testToken}`, accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(405);
    expect(stream.headers.get('allow')).toBe('POST');
    expect(await stream.json()).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
    expect((await fetch(`${review.url}/mcp`, { method: 'DELETE' })).status).toBe(401);
    // The SDK's client sees the refusal as what it is.
    await expect(connect(review, 'not-a-token')).rejects.toMatchObject({ code: 401 });
  });

  it('answers a waiting kickoff at once when crewd shuts down; the execution finishes and is there after a restart', async () => {
    const database = tempDatabase();
    const crewDir = userCrew(join(crewsDir, 'plain-crew'));
    // A long grace period: only the shutdown itself can end the wait.
    const env = { CREWD_SHUTDOWN_GRACE_MS: '3600000' };
    const first = await startCrewd({ crewDir, database, modelUrl: model.url, env });
    held.hold('Outline a note about gannets');
    const client = await connect(first);
    const waiting = call(client, 'kickoff', { topic: 'gannets', ...waitLong });
    await until(() =>
      model.requests.some((request) => JSON.stringify(request.body).includes('about gannets')),
    );

    const closed = first.close();
    const answer = structured(await waiting);
    expect(answer.state).toBe('RUNNING');
    held.letGo('Outline a note about gannets');
    await closed;

    const second = await startCrewd({ crewDir, database, modelUrl: model.url });
    try {
      const later = await connect(second);
      // Recovered by the new process; status follows it to the end.
      const status = structured(await call(later, 'status', { kickoff_id: answer.kickoff_id, ...waitLong }));
      expect(status).toMatchObject({ kickoff_id: answer.kickoff_id, state: 'SUCCESS' });
      expect(status.tasks).toHaveLength(3);
    } finally {
      await second.close();
    }
  });
});
