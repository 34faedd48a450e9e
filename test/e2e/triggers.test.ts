import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { createTokenService } from '../../src/service/token-service.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { runCrewd } from '../cli/crewd-command.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { apiClient, crewsDir, startCrewd, tempDatabase } from '../support/crewd.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;
let crewd: RunningServer;
let store: Store;
let database: string;
let secret: string;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: () => ({ content: 'Handled.' }) });
  database = tempDatabase();
  const created = await runCrewd([
    'triggers',
    'create',
    'orders',
    '--inputs',
    '{"topic": "new orders"}',
    '--database',
    database,
  ]);
  expect(created.code).toBe(0);
  secret = created.stdout.trimEnd().split('\n').at(-1)!;
  crewd = await startCrewd({
    crewDir: userCrew(join(crewsDir, 'plain-crew')),
    database,
    modelUrl: model.url,
  });
  store = await openSqliteStore(database);
});

afterAll(async () => {
  await crewd.close();
  await store.close();
  await model.close();
});

/** Posts `body` to a trigger as another system would: signed with Standard Webhooks. */
function signedPost(name: string, body: string, options: { id: string; key?: string }) {
  const timestamp = new Date();
  const signature = new Webhook(options.key ?? secret).sign(options.id, timestamp, body);
  return apiClient(crewd.url, null).post(`/triggers/${name}`, body, {
    'content-type': 'application/json',
    'webhook-id': options.id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signature,
  });
}

async function triggeredExecutions(name: string) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads response fields
  const page = (await apiClient(crewd.url).get('/executions?limit=100')).body as { items: any[] };
  return page.items.filter((execution) => execution.meta?.trigger === name);
}

describe('triggers', () => {
  it('starts the crew from a signed event, its body as crewai_trigger_payload, once per webhook id', async () => {
    expect(secret).toMatch(/^whsec_/);
    const body = JSON.stringify({ order: 4217, customer: 'Ada' });
    const first = await signedPost('orders', body, { id: 'msg_order_4217' });
    expect(first.status).toBe(200);
    const id = first.body.kickoff_id as string;

    const status = await apiClient(crewd.url).waitForState(id, ['SUCCESS']);
    expect(status.body.meta).toMatchObject({ trigger: 'orders', webhook_id: 'msg_order_4217' });
    // crewAI joins the payload to the first task's prompt.
    const prompts = model.requests.map((request) => JSON.stringify(request.body));
    expect(
      prompts.some((prompt) => prompt.includes('new orders') && prompt.includes('Trigger Payload:')),
    ).toBe(true);
    expect(prompts.some((prompt) => prompt.includes('\\"order\\":4217'))).toBe(true);

    const repeated = await signedPost('orders', body, { id: 'msg_order_4217' });
    expect(repeated.body.kickoff_id).toBe(id);
    expect(await triggeredExecutions('orders')).toHaveLength(1);
  });

  it('refuses unsigned, badly signed and unknown triggers alike, in the error shape', async () => {
    const body = JSON.stringify({ order: 1 });
    const unsigned = await apiClient(crewd.url, null).post('/triggers/orders', body);
    const forged = await signedPost('orders', body, {
      id: 'msg_forged',
      key: `whsec_${Buffer.from('not the secret at all, really').toString('base64')}`,
    });
    const unknown = await signedPost('nowhere', body, { id: 'msg_unknown' });
    for (const response of [unsigned, forged, unknown]) {
      expect(response.status).toBe(401);
      expect(response.body).toEqual({
        error: 'Unauthorized',
        message: 'Invalid or missing bearer token',
        code: 'UNAUTHORIZED',
      });
    }
    // With a token the name may be told apart.
    expect((await apiClient(crewd.url).post('/triggers/nowhere', body)).status).toBe(404);
    expect(await triggeredExecutions('orders')).toHaveLength(1);
  });

  it("takes a bearer token instead of a signature, the execution then being the token's", async () => {
    const tokens = createTokenService({ store, clock: () => new Date() });
    const alice = apiClient(crewd.url, (await tokens.create({ kind: 'user', userId: 'alice' })).secret);
    const bob = apiClient(crewd.url, (await tokens.create({ kind: 'user', userId: 'bob' })).secret);

    const started = await alice.post('/triggers/orders', { order: 7 });
    expect(started.status).toBe(200);
    const id = started.body.kickoff_id as string;
    expect((await alice.waitForState(id, ['SUCCESS'])).body.meta).toMatchObject({ trigger: 'orders' });
    expect((await bob.get(`/status/${id}`)).status).toBe(404);
  });

  it('needs a JSON body, and stops answering once deleted', async () => {
    const empty = await apiClient(crewd.url).post('/triggers/orders');
    expect(empty.status).toBe(400);
    expect(empty.body.message).toContain('crewai_trigger_payload');

    const listed = await runCrewd(['triggers', 'list', '--database', database]);
    expect(listed.stdout).toMatch(/^NAME\s+CREW\s+INPUTS\s+CREATED\norders\s+-\s+\{"topic":"new orders"\}/);
    expect(listed.stdout).not.toContain(secret);

    expect((await runCrewd(['triggers', 'delete', 'orders', '--database', database])).code).toBe(0);
    const after = await signedPost('orders', JSON.stringify({ order: 2 }), { id: 'msg_after_delete' });
    expect(after.status).toBe(401);
  });

  it('limits a trigger made for one crew to that crew', async () => {
    const made = await runCrewd([
      'triggers',
      'create',
      'elsewhere',
      '--crew',
      'another-crew',
      '--database',
      database,
    ]);
    const key = made.stdout.trimEnd().split('\n').at(-1)!;
    const refused = await signedPost('elsewhere', JSON.stringify({ order: 3 }), { id: 'msg_elsewhere', key });
    expect(refused.status).toBe(401);
    expect(await triggeredExecutions('elsewhere')).toHaveLength(0);
  });
});
