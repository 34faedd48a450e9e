import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { createTokenService } from '../../src/service/token-service.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { apiClient, crewsDir, startCrewd, tempDatabase, testToken } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { HeldPrompts } from '../support/held-prompts.ts';
import { heldNumberedAnswers } from '../support/model-requests.ts';
import { startScriptedReceiver, type ScriptedReceiver } from '../support/scripted-receiver.ts';
import { until } from '../support/until.ts';
import { callMcpTool, connectMcp, errorBody, structured } from '../support/mcp-client.ts';
import { userCrew } from '../support/user-crew.ts';

const held = new HeldPrompts();
let model: FakeOpenAIServer;
let receiver: ScriptedReceiver;
/** The three-task crew with input `topic`. */
let plain: RunningServer;
/** gather, draft (human input), publish; inputs `product` and `audience`. */
let review: RunningServer;
let reviewStore: Store;
const clients: Client[] = [];

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: heldNumberedAnswers(held) });
  receiver = await startScriptedReceiver();
  plain = await startCrewd({ crewDir: userCrew(join(crewsDir, 'plain-crew')), modelUrl: model.url });
  const database = tempDatabase();
  review = await startCrewd({
    crewDir: userCrew(join(crewsDir, 'review-crew')),
    database,
    modelUrl: model.url,
  });
  reviewStore = await openSqliteStore(database);
});

afterAll(async () => {
  held.letAllGo();
  for (const client of clients) await client.close();
  await plain.close();
  await review.close();
  await reviewStore.close();
  await receiver.close();
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

const waitLong = { wait_seconds: 300 };

describe('the MCP cancel tool', () => {
  it("cancels an execution its token can see; another user's answers as not found", async () => {
    const alice = await connect(review, await userToken('alice-cancels'));
    const bob = await connect(review, await userToken('bob-cancels'));
    const paused = structured(
      await call(alice, 'kickoff', { product: 'tents', audience: 'hikers', ...waitLong }),
    );
    expect(paused.state).toBe('PAUSED');

    expect(errorBody(await call(bob, 'cancel', { kickoff_id: paused.kickoff_id }))).toEqual({
      error: 'Not Found',
      message: expect.any(String),
      code: 'NOT_FOUND',
    });
    expect(structured(await call(alice, 'status', { kickoff_id: paused.kickoff_id })).state).toBe('PAUSED');

    const canceled = structured(await call(alice, 'cancel', { kickoff_id: paused.kickoff_id }));
    expect(canceled).toMatchObject({ kickoff_id: paused.kickoff_id, state: 'REVOKED' });
    expect((await apiClient(review.url).get(`/status/${paused.kickoff_id}`)).body.state).toBe('REVOKED');
    // A finished execution stays as it is.
    expect(structured(await call(alice, 'cancel', { kickoff_id: paused.kickoff_id })).state).toBe('REVOKED');
  });

  it('is listed as a destructive tool taking the kickoff id', async () => {
    const { tools } = await (await connect(review)).listTools();
    const cancel = tools.find((tool) => tool.name === 'cancel')!;
    expect(cancel.inputSchema.required).toEqual(['kickoff_id']);
    expect(cancel.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });
});

describe('the MCP kickoff tool beside the inputs', () => {
  it('takes meta and the webhook URLs of POST /kickoff', async () => {
    const client = await connect(plain);
    const meta = { requestId: 'mcp-1' };
    const view = structured(
      await call(client, 'kickoff', {
        topic: 'wrens',
        meta,
        taskWebhookUrl: `${receiver.url}/task`,
        crewWebhookUrl: `${receiver.url}/crew`,
        ...waitLong,
      }),
    );

    expect(view).toMatchObject({ state: 'SUCCESS', meta });
    const [crewCall] = await receiver.waitFor('/crew', 1);
    expect(crewCall!.body).toMatchObject({ kickoff_id: view.kickoff_id, state: 'SUCCESS', meta });
    const tasks = await receiver.waitFor('/task', 3);
    expect(tasks.map((request) => request.body.task_id)).toEqual(['outline', 'note', 'summary']);
  });

  it('refuses a webhook URL POST /kickoff would refuse, naming the argument', async () => {
    const client = await connect(plain);
    const refused = await call(client, 'kickoff', { topic: 'owls', crewWebhookUrl: 'ftp://example.com/x' });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('crewWebhookUrl');
  });

  it('lists the extras beside the inputs', async () => {
    const { tools } = await (await connect(plain)).listTools();
    const kickoff = tools.find((tool) => tool.name === 'kickoff')!;
    expect(kickoff.inputSchema.required).toEqual(['topic']);
    expect(Object.keys(kickoff.inputSchema.properties ?? {})).toEqual([
      'wait_seconds',
      'topic',
      'meta',
      'taskWebhookUrl',
      'stepWebhookUrl',
      'crewWebhookUrl',
      'humanInputWebhook',
      'webhooks',
    ]);
  });
});

describe('the MCP response stream', () => {
  it('sends its headers while a tool call waits, and the answer when the wait ends', async () => {
    held.hold('Outline a note about storks');
    const response = await fetch(`${plain.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${testToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'kickoff', arguments: { topic: 'storks', ...waitLong } },
      }),
    });

    // fetch resolves at the headers: the execution is still held at its first model call.
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    await until(() =>
      model.requests.some((request) => JSON.stringify(request.body).includes('about storks')),
    );
    held.letGo('Outline a note about storks');
    const text = await response.text();
    const data = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice('data: '.length)) as { id?: number; result?: CallToolResult });
    const answer = data.find((message) => message.id === 1);
    expect((answer?.result?.structuredContent as { state?: string }).state).toBe('SUCCESS');
  });
});
