import { Role, TaskState } from '@a2a-js/sdk';
import type {
  AgentCard,
  ListTasksRequest,
  Part,
  SendMessageRequest,
  StreamResponse,
  Task,
} from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import type { Client } from '@a2a-js/sdk/client';
import { TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { createTokenService } from '../../src/service/token-service.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { apiClient, crewsDir, startCrewd, tempDatabase, testToken } from '../support/crewd.ts';
import type { ApiResponse } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { HeldPrompts } from '../support/held-prompts.ts';
import { heldNumberedAnswers, requestsMentioning } from '../support/model-requests.ts';
import type { TokenService } from '../../src/service/token-service.ts';
import { startScriptedReceiver, type ScriptedReceiver } from '../support/scripted-receiver.ts';
import { until } from '../support/until.ts';
import { userCrew } from '../support/user-crew.ts';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
let model: FakeOpenAIServer;
let receiver: ScriptedReceiver;
/** plain-crew: one input (`topic`), three tasks, no review. */
let plain: RunningServer;
/** review-crew: inputs `product` and `audience`; its `draft` task waits for review. */
let review: RunningServer;
let store: Store;
let tokens: TokenService;
const held = new HeldPrompts();
let aliceToken: string;
let bobToken: string;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: heldNumberedAnswers(held) });
  receiver = await startScriptedReceiver();
  // CREWD_WEBHOOK_ALLOW_PRIVATE=1 (set for every test server) lets notifications reach the loopback receiver.
  const env = { CREWD_WEBHOOK_SECRET: secret };
  plain = await startCrewd({ crewDir: userCrew(join(crewsDir, 'plain-crew')), modelUrl: model.url, env });
  const database = tempDatabase();
  review = await startCrewd({
    crewDir: userCrew(join(crewsDir, 'review-crew')),
    modelUrl: model.url,
    env,
    database,
  });
  store = await openSqliteStore(database);
  tokens = createTokenService({ store, clock: () => new Date() });
  aliceToken = (await tokens.create({ kind: 'user', userId: 'alice' })).secret;
  bobToken = (await tokens.create({ kind: 'user', userId: 'bob' })).secret;
});

afterAll(async () => {
  held.letAllGo();
  await review.close();
  await plain.close();
  await store.close();
  await receiver.close();
  await model.close();
});

function fetchWith(token: string): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

/** The SDK's client, found from the agent card at the crew's base URL, speaking protocol 1.0. */
function client(baseUrl: string, token = testToken): Promise<Client> {
  const fetchImpl = fetchWith(token);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })],
      cardResolver: new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }),
    }),
  );
  return factory.createFromUrl(baseUrl);
}

/** The same client on the card's protocol 0.3 interface: the protocol of the hosted crewAI platform. */
async function legacyClient(baseUrl: string, token = testToken): Promise<Client> {
  const fetchImpl = fetchWith(token);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })],
    }),
  );
  const card: AgentCard = await new DefaultAgentCardResolver().resolve(baseUrl);
  const legacyOnly = card.supportedInterfaces.filter((entry) => entry.protocolVersion === '0.3');
  const created = await factory.createFromAgentCard({ ...card, supportedInterfaces: legacyOnly });
  expect(created.protocolVersion).toBe('0.3');
  return created;
}

function text(value: string): Part {
  return { content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function data(value: Record<string, unknown>): Part {
  return {
    content: { $case: 'data', value },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  };
}

let messages = 0;
function send(
  parts: Part[],
  taskId = '',
  configuration?: SendMessageRequest['configuration'],
): SendMessageRequest {
  return {
    tenant: '',
    message: {
      messageId: `message-${++messages}`,
      contextId: '',
      taskId,
      role: Role.ROLE_USER,
      parts,
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration,
    metadata: undefined,
  };
}

/** A raw JSON-RPC call, as clients of other SDKs make it. */
async function rpc(baseUrl: string, method: string, params: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${baseUrl}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${testToken}`, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as ApiResponse['body'];
}

function asTask(result: unknown): Task {
  expect(result).toHaveProperty('status');
  return result as Task;
}

function partsText(parts: readonly Part[] | undefined): string[] {
  return (parts ?? []).flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []));
}

function partsData(parts: readonly Part[] | undefined): unknown[] {
  return (parts ?? []).flatMap((part) => (part.content?.$case === 'data' ? [part.content.value] : []));
}

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function states(events: readonly StreamResponse[]): TaskState[] {
  return events.flatMap((event) => {
    const payload = event.payload;
    if (payload?.$case === 'task') return [payload.value.status!.state];
    if (payload?.$case === 'statusUpdate') return [payload.value.status!.state];
    return [];
  });
}

describe('the agent card', () => {
  it('is public, names the crew as one skill with its inputs, the bearer scheme and the JSON-RPC URL', async () => {
    const legacy = await fetch(`${review.url}/.well-known/agent-card.json`);
    expect(legacy.status).toBe(200);
    const card = (await legacy.json()) as ApiResponse['body'];
    expect(card).toMatchObject({
      protocolVersion: '0.3.0',
      name: 'review-crew',
      url: `${review.url}/a2a`,
      preferredTransport: 'JSONRPC',
      capabilities: { streaming: true, pushNotifications: true },
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
      security: [{ bearerAuth: [] }],
    });
    expect(card.skills).toHaveLength(1);
    expect(card.skills[0].description).toContain('product, audience');
    // Nothing of the crew's prompts: those are GET /crew's, behind a token.
    expect(JSON.stringify(card)).not.toContain('Market analyst');

    const current = await fetch(`${review.url}/.well-known/agent-card.json`, {
      headers: { 'A2A-Version': '1.0' },
    });
    const v1 = (await current.json()) as ApiResponse['body'];
    expect(v1.supportedInterfaces).toEqual([
      { url: `${review.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${review.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
  });

  it('refuses JSON-RPC without a token', async () => {
    const response = await fetch(`${review.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } }),
    });
    expect(response.status).toBe(401);
  });
});

describe('A2A tasks are executions', () => {
  it('runs a crew from a text message and answers the completed task, which is the execution', async () => {
    const agent = await client(plain.url);
    const task = asTask(await agent.sendMessage(send([text('kettles')])));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const [artifact] = task.artifacts;
    expect(partsText(artifact?.parts)).toEqual([expect.stringMatching(/^Answer number \d+\.$/)]);

    const status = await apiClient(plain.url).get(`/status/${task.id}`);
    expect(status.body).toMatchObject({ state: 'SUCCESS', result: partsText(artifact?.parts)[0] });
    const again = await agent.getTask({ tenant: '', id: task.id });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it.each([
    ['0.3', legacyClient],
    ['1.0', client],
  ])('streams the states of a task to its end (protocol %s)', async (_version, connect) => {
    const agent = await connect(plain.url);
    const events = await collect(agent.sendMessageStream(send([data({ topic: 'lamps' })])));
    const seen = states(events);
    expect(seen[0]).toBe(TaskState.TASK_STATE_SUBMITTED);
    expect(seen).toContain(TaskState.TASK_STATE_WORKING);
    expect(seen.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    const artifacts = events.filter((event) => event.payload?.$case === 'artifactUpdate');
    expect(artifacts).toHaveLength(1);
  });

  it('answers a protocol 0.3 message/send without configuration once the task has completed', async () => {
    const body = await rpc(plain.url, 'message/send', {
      message: {
        kind: 'message',
        messageId: 'm-plain',
        role: 'user',
        parts: [{ kind: 'text', text: 'maps' }],
      },
    });
    expect(body.result).toMatchObject({
      kind: 'task',
      status: { state: 'completed' },
      artifacts: [{ artifactId: 'result', parts: [{ kind: 'text', text: expect.any(String) }] }],
    });
  });

  it('answers a missing input with invalid params naming it, in both protocol versions', async () => {
    const legacy = await rpc(review.url, 'message/send', {
      message: {
        kind: 'message',
        messageId: 'm-missing',
        role: 'user',
        parts: [{ kind: 'data', data: { product: 'desks' } }],
      },
    });
    expect(legacy).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602 } });
    expect(legacy.error.message).toContain('audience');

    const current = await rpc(
      review.url,
      'SendMessage',
      { message: { messageId: 'm-missing-1', role: 'ROLE_USER', parts: [{ data: { product: 'desks' } }] } },
      { 'A2A-Version': '1.0' },
    );
    expect(current).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602 } });
    expect(current.error.message).toContain('audience');
  });

  it('answers an unknown task and an unknown method with their JSON-RPC errors', async () => {
    const unknown = await rpc(plain.url, 'tasks/get', { id: '00000000-0000-4000-8000-000000000000' });
    expect(unknown).toMatchObject({ id: 7, error: { code: -32001 } });
    const method = await rpc(plain.url, 'tasks/teleport', { id: 'x' });
    expect(method).toMatchObject({ id: 7, error: { code: -32601 } });
  });

  it('follows a task again with tasks/resubscribe until it ends', async () => {
    const agent = await legacyClient(review.url);
    const paused = asTask(await agent.sendMessage(send([data({ product: 'mugs', audience: 'offices' })])));
    const waiting = await collect(agent.resubscribeTask({ tenant: '', id: paused.id }));
    expect(states(waiting)).toEqual([TaskState.TASK_STATE_INPUT_REQUIRED]);

    await agent.sendMessage(
      send([text('approve')], paused.id, {
        acceptedOutputModes: [],
        historyLength: undefined,
        returnImmediately: true,
        taskPushNotificationConfig: undefined,
      }),
    );
    const rest = await collect(agent.resubscribeTask({ tenant: '', id: paused.id }));
    expect(states(rest).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('waits for review as input-required and takes the answer in the same task', async () => {
    const agent = await legacyClient(review.url);
    const paused = asTask(await agent.sendMessage(send([data({ product: 'toasters', audience: 'cooks' })])));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(partsData(paused.status?.message?.parts)).toEqual([
      expect.objectContaining({ task_id: 'draft', attempt: 1, output: expect.any(String) }),
    ]);

    // Any text but "approve" rejects the output with that text as feedback: the task runs again.
    const retried = asTask(await agent.sendMessage(send([text('Mention the warranty.')], paused.id)));
    expect(retried.id).toBe(paused.id);
    expect(retried.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(partsData(retried.status?.message?.parts)).toEqual([expect.objectContaining({ attempt: 2 })]);

    const done = asTask(
      await agent.sendMessage(send([data({ is_approve: true, human_feedback: 'Good.' })], paused.id)),
    );
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const status = await apiClient(review.url).get(`/status/${paused.id}`);
    expect(status.body.tasks.map((task: { task_id: string }) => task.task_id)).toEqual([
      'gather',
      'draft',
      'publish',
    ]);
  });

  it('cancels a task, and refuses to cancel it again', async () => {
    const agent = await client(review.url);
    const paused = asTask(await agent.sendMessage(send([data({ product: 'kites', audience: 'kids' })])));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const canceled = await agent.cancelTask({ tenant: '', id: paused.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await apiClient(review.url).get(`/status/${paused.id}`)).body.state).toBe('REVOKED');
    await expect(agent.cancelTask({ tenant: '', id: paused.id, metadata: undefined })).rejects.toBeInstanceOf(
      TaskNotCancelableError,
    );
  });
});

describe('push notifications', () => {
  it('posts each state of the task through the signed webhook outbox', async () => {
    const agent = await legacyClient(review.url);
    const paused = asTask(await agent.sendMessage(send([data({ product: 'chairs', audience: 'cafes' })])));
    await agent.createTaskPushNotificationConfig({
      tenant: '',
      id: '',
      taskId: paused.id,
      url: `${receiver.url}/push`,
      token: 'notification-token-1',
      authentication: undefined,
    });
    const config = await agent.getTaskPushNotificationConfig({ tenant: '', taskId: paused.id, id: '' });
    expect(config.url).toBe(`${receiver.url}/push`);

    await agent.sendMessage(send([text('approve')], paused.id));
    const completed = () =>
      receiver
        .on('/push')
        .filter((push) => push.body.id === paused.id && push.body.status?.state === 'completed');
    await until(
      () => completed().length === 1,
      undefined,
      () => JSON.stringify(receiver.on('/push')),
    );

    const [push] = completed();
    expect(push!.headers['x-a2a-notification-token']).toBe('notification-token-1');
    expect(push!.body).toMatchObject({ kind: 'task', id: paused.id, artifacts: [{ artifactId: 'result' }] });
    expect(() =>
      new Webhook(secret).verify(push!.rawBody, {
        'webhook-id': push!.headers['webhook-id'] as string,
        'webhook-timestamp': push!.headers['webhook-timestamp'] as string,
        'webhook-signature': push!.headers['webhook-signature'] as string,
      }),
    ).not.toThrow();
  });

  it('takes a push config with the message that starts the task', async () => {
    const agent = await client(plain.url);
    const task = asTask(
      await agent.sendMessage(
        send([text('boats')], '', {
          acceptedOutputModes: [],
          historyLength: undefined,
          returnImmediately: false,
          taskPushNotificationConfig: {
            tenant: '',
            id: 'mine',
            taskId: '',
            url: `${receiver.url}/push-v1`,
            token: '',
            authentication: undefined,
          },
        }),
      ),
    );
    const pushed = () => receiver.on('/push-v1').filter((push) => push.body.task?.id === task.id);
    await until(() => pushed().some((push) => push.body.task.status.state === 'TASK_STATE_COMPLETED'));
    expect(pushed().map((push) => push.body.task.status.state)).toEqual([
      'TASK_STATE_WORKING',
      'TASK_STATE_COMPLETED',
    ]);
  });
});

describe('after a restart', () => {
  it('answers a task paused before it, and still pushes to its config', async () => {
    const database = tempDatabase();
    const crewDir = userCrew(join(crewsDir, 'review-crew'));
    const env = { CREWD_WEBHOOK_SECRET: secret };
    const first = await startCrewd({ crewDir, modelUrl: model.url, env, database });
    let paused: Task;
    try {
      const agent = await legacyClient(first.url);
      paused = asTask(
        await agent.sendMessage(
          send([data({ product: 'bells', audience: 'schools' })], '', {
            acceptedOutputModes: [],
            historyLength: undefined,
            returnImmediately: false,
            taskPushNotificationConfig: {
              tenant: '',
              id: '',
              taskId: '',
              url: `${receiver.url}/restarted`,
              token: '',
              authentication: undefined,
            },
          }),
        ),
      );
      expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    } finally {
      await first.close();
    }

    const second = await startCrewd({ crewDir, modelUrl: model.url, env, database });
    try {
      const agent = await legacyClient(second.url);
      const done = asTask(await agent.sendMessage(send([text('approve')], paused.id)));
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const completed = () =>
        receiver.on('/restarted').filter((push) => push.body.status?.state === 'completed');
      await until(() => completed().length === 1);
      expect(completed()[0]!.body.id).toBe(paused.id);
    } finally {
      await second.close();
    }
  });
});

describe('tokens', () => {
  it("does not show, cancel, follow or answer another user's task", async () => {
    const alice = await client(review.url, aliceToken);
    const bob = await client(review.url, bobToken);
    const paused = asTask(await alice.sendMessage(send([data({ product: 'pens', audience: 'clerks' })])));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    await expect(bob.getTask({ tenant: '', id: paused.id })).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(bob.cancelTask({ tenant: '', id: paused.id, metadata: undefined })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    await expect(collect(bob.resubscribeTask({ tenant: '', id: paused.id }))).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    await expect(bob.sendMessage(send([text('approve')], paused.id))).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    await expect(
      bob.createTaskPushNotificationConfig({
        tenant: '',
        id: '',
        taskId: paused.id,
        url: `${receiver.url}/stolen`,
        token: '',
        authentication: undefined,
      }),
    ).rejects.toBeInstanceOf(TaskNotFoundError);

    // Still Alice's, still waiting.
    expect((await alice.getTask({ tenant: '', id: paused.id })).status?.state).toBe(
      TaskState.TASK_STATE_INPUT_REQUIRED,
    );
  });
});

describe('ListTasks', () => {
  it("lists the caller's own tasks, newest first, a page at a time, by state or by context", async () => {
    const alice = await client(review.url, aliceToken);
    const bob = await client(review.url, bobToken);
    const request = { tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '' };
    const list = (who: Client, params: Partial<ListTasksRequest>) =>
      who.listTasks({ ...request, statusTimestampAfter: undefined, ...params });
    const older = asTask(await alice.sendMessage(send([data({ product: 'maps', audience: 'sailors' })])));
    const newer = asTask(await alice.sendMessage(send([data({ product: 'oars', audience: 'rowers' })])));
    const bobs = asTask(await bob.sendMessage(send([data({ product: 'nets', audience: 'fishers' })])));

    const first = await list(alice, { pageSize: 1 });
    expect(first.tasks.map((task) => task.id)).toEqual([newer.id]);
    expect(first.nextPageToken).not.toBe('');
    const second = await list(alice, { pageSize: 1, pageToken: first.nextPageToken });
    expect(second.tasks.map((task) => task.id)).toEqual([older.id]);

    const waiting = await list(alice, { status: TaskState.TASK_STATE_INPUT_REQUIRED, pageSize: 100 });
    const ids = waiting.tasks.map((task) => task.id);
    expect(ids).toEqual(expect.arrayContaining([older.id, newer.id]));
    expect(ids).not.toContain(bobs.id);
    expect(waiting.tasks.every((task) => task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED)).toBe(
      true,
    );
    const done = await list(alice, { status: TaskState.TASK_STATE_COMPLETED, pageSize: 100 });
    expect(done.tasks.map((task) => task.id)).not.toContain(newer.id);

    // A task's context is the task: Alice finds hers, Bob finds nothing of Alice's.
    expect((await list(alice, { contextId: newer.id })).tasks.map((task) => task.id)).toEqual([newer.id]);
    expect((await list(bob, { contextId: newer.id })).tasks).toEqual([]);
    expect((await list(bob, { pageSize: 100 })).tasks.map((task) => task.id)).not.toContain(newer.id);
  });
});

describe('a revoked token', () => {
  it('loses its waiting send and its open stream', async () => {
    const carol = await tokens.create({ kind: 'user', userId: 'carol' });
    held.hold('revocation-kettles');
    const agent = await legacyClient(review.url, carol.secret);
    const waiting = agent.sendMessage(send([data({ product: 'revocation-kettles', audience: 'a' })]));
    const stream = agent.sendMessageStream(send([data({ product: 'revocation-kettles', audience: 'b' })]));
    const first = await stream.next();
    expect(first.value?.payload?.$case).toBe('task');
    // Both executions wait on the model now.
    await until(() => requestsMentioning(model, 'revocation-kettles').length === 2);

    await tokens.revoke(carol.record.id);
    await expect(waiting).rejects.toThrow();
    await expect(collect({ [Symbol.asyncIterator]: () => stream })).rejects.toThrow(/bearer token/);
    held.letGo('revocation-kettles');
  });
});
