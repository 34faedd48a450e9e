import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { executionLogEventSchema } from '../../src/domain/execution-log.ts';
import {
  startFakeOpenAI,
  type FakeOpenAIServer,
  type FakeReply,
  type RecordedRequest,
} from '../support/fake-openai-server.ts';
import { startScriptedReceiver, type ScriptedReceiver } from '../support/scripted-receiver.ts';
import { readEvents } from '../support/sse.ts';
import { hangAfterMs, until } from '../support/until.ts';
import { apiClient, startCrewd, tempDatabase } from '../support/crewd.ts';
import { userCrew } from '../support/user-crew.ts';
import { userTokens } from '../support/user-tokens.ts';

const flowsDir = join(import.meta.dirname, 'flows');

/** The draft names the topic; a review's free text is classified as needs_changes. */
function answer(request: RecordedRequest): FakeReply {
  const text = JSON.stringify(request.body.messages);
  if (text.includes('determine which outcome best matches'))
    return { content: '{"outcome": "needs_changes"}' };
  const topic = /Draft one line about ([^.]+) for/.exec(text)?.[1] ?? 'something';
  if (topic === 'broken') return { status: 400, errorMessage: 'upstream secret detail' };
  return { content: `A draft about ${topic}.` };
}

let model: FakeOpenAIServer;
let crewd: RunningServer;
let api: ReturnType<typeof apiClient>;
let aliceToken: string;
let bobToken: string;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: answer });
  const database = tempDatabase();
  [aliceToken, bobToken] = (await userTokens(database, 'alice', 'bob')) as [string, string];
  crewd = await startCrewd({
    crewDir: userCrew(join(flowsDir, 'review-flow')),
    modelUrl: model.url,
    database,
  });
  api = apiClient(crewd.url);
});

afterAll(async () => {
  await crewd.close();
  await model.close();
});

const chatCalls = (): RecordedRequest[] =>
  model.requests.filter((request) => request.path.endsWith('/chat/completions'));

async function pausedReview(topic: string): Promise<string> {
  const kickoff = await api.post('/kickoff', { inputs: { topic } });
  expect(kickoff.status).toBe(200);
  await api.waitForState(kickoff.body.kickoff_id, ['PAUSED']);
  return kickoff.body.kickoff_id as string;
}

describe('a flow served over HTTP', () => {
  it('lists the state fields as its inputs, and itself as a flow', async () => {
    expect((await api.get('/inputs')).body).toEqual({ inputs: ['topic', 'audience'] });
    const crews = await api.get('/crews');
    expect(crews.body.crews).toEqual([
      expect.objectContaining({ kind: 'flow', inputs: ['topic', 'audience'] }),
    ]);
  });

  it('tells which inputs are optional and their defaults on GET /crew, and types them in the API description', async () => {
    const crew = await api.get('/crew');
    expect(crew.body.inputs).toEqual(['topic', 'audience']);
    expect(crew.body.input_fields).toEqual([
      { name: 'topic', required: true, type: 'string', description: null },
      { name: 'audience', required: false, type: 'string', description: null, default: 'engineers' },
    ]);
    const document = (await apiClient(crewd.url, null).get('/openapi.json')).body;
    const inputs =
      document.paths['/kickoff'].post.requestBody.content['application/json'].schema.properties.inputs;
    expect(inputs).toMatchObject({
      properties: { topic: { type: 'string' }, audience: { type: 'string' } },
      required: ['topic'],
    });
    // The defaults are GET /crew's, behind a token.
    expect(JSON.stringify(document)).not.toContain('engineers');
  });

  it('refuses a kickoff missing a required field or naming an unknown one, with 422', async () => {
    const missing = await api.post('/kickoff', { inputs: {} });
    expect(missing.status).toBe(422);
    expect(missing.body).toMatchObject({
      error: 'Validation Error',
      code: 'MISSING_INPUTS',
      details: { missing_inputs: ['topic'] },
    });
    const unknown = await api.post('/kickoff', { inputs: { topic: 'tea', colour: 'red' } });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ code: 'MISSING_INPUTS', details: { unknown_inputs: ['colour'] } });
  });

  it('pauses on the review method with its output, message and outcomes', async () => {
    const id = await pausedReview('kettles');
    const status = await api.get(`/status/${id}`);
    expect(status.body).toMatchObject({
      state: 'PAUSED',
      status: 'Pending Human Input',
      current_task: 'review',
      pending_human_input: {
        task_id: 'review',
        output: 'A draft about kettles.',
        attempt: 1,
        message: 'Publish this draft?',
        emit: ['approved', 'needs_changes'],
      },
      flow_state: { topic: 'kettles', audience: 'engineers', id: expect.any(String) },
      flow_methods: ['draft'],
    });
  });

  it('routes an exact outcome label without asking the model', async () => {
    const id = await pausedReview('toasters');
    const before = chatCalls().length;
    const resumed = await api.post('/resume', {
      execution_id: id,
      task_id: 'review',
      human_feedback: 'approved',
      is_approve: true,
    });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toEqual({ status: 'resumed', message: expect.any(String) });
    const done = await api.waitForState(id, ['SUCCESS']);
    expect(done.body.result).toBe('PUBLISHED: A draft about toasters.');
    expect(done.body.flow_methods).toEqual(['draft', 'review', 'publish']);
    expect(chatCalls().length).toBe(before);
  });

  it('takes the default outcome for empty feedback', async () => {
    const id = await pausedReview('mugs');
    await api.post('/resume', { execution_id: id, task_id: 'review', human_feedback: '', is_approve: true });
    const done = await api.waitForState(id, ['SUCCESS']);
    expect(done.body.result).toBe('PUBLISHED: A draft about mugs.');
  });

  it("has the review's model classify free-text feedback", async () => {
    const id = await pausedReview('spoons');
    await api.post('/resume', {
      execution_id: id,
      task_id: 'review',
      human_feedback: 'Add a concrete example first',
      is_approve: false,
    });
    const done = await api.waitForState(id, ['SUCCESS']);
    expect(done.body.result).toBe('SENT BACK: Add a concrete example first');
    expect(done.body.flow_methods).toEqual(['draft', 'review', 'send_back']);
    const classified = chatCalls().filter((request) =>
      JSON.stringify(request.body.messages).includes('Add a concrete example first'),
    );
    expect(classified).toHaveLength(1);
  });

  it('answers 404 for a method the flow lacks and 400 for one not awaiting review', async () => {
    const id = await pausedReview('forks');
    const unknown = await api.post('/resume', {
      execution_id: id,
      task_id: 'nope',
      human_feedback: '',
      is_approve: true,
    });
    expect(unknown.status).toBe(404);
    const notWaiting = await api.post('/resume', {
      execution_id: id,
      task_id: 'draft',
      human_feedback: '',
      is_approve: true,
    });
    expect(notWaiting.status).toBe(400);
    expect(notWaiting.body).toMatchObject({
      error: 'Invalid Request',
      message: 'Execution is not in pending human input state',
    });
  });

  it("hides a user's flow execution from another user's token", async () => {
    const alice = apiClient(crewd.url, aliceToken);
    const bob = apiClient(crewd.url, bobToken);
    const kickoff = await alice.post('/kickoff', { inputs: { topic: 'plates' } });
    const id = kickoff.body.kickoff_id as string;
    await alice.waitForState(id, ['PAUSED']);
    expect((await bob.get(`/status/${id}`)).status).toBe(404);
    const resumed = await bob.post('/resume', {
      execution_id: id,
      task_id: 'review',
      human_feedback: 'approved',
      is_approve: true,
    });
    expect(resumed.status).toBe(404);
    expect((await bob.get(`/executions/${id}/events`)).status).toBe(404);
    expect((await alice.get(`/status/${id}`)).body.state).toBe('PAUSED');
  });
});

describe("a flow's events and webhooks", () => {
  let receiver: ScriptedReceiver;

  beforeAll(async () => {
    receiver = await startScriptedReceiver();
  });

  afterAll(async () => {
    await receiver.close();
  });

  it('streams method events, sends the review and crew webhooks, and task and step webhooks of its agents', async () => {
    const kickoff = await api.post('/kickoff', {
      inputs: { topic: 'lamps' },
      taskWebhookUrl: `${receiver.url}/task`,
      stepWebhookUrl: `${receiver.url}/step`,
      crewWebhookUrl: `${receiver.url}/crew`,
      humanInputWebhook: {
        url: `${receiver.url}/review`,
        authentication: { strategy: 'bearer', token: 'review-secret' },
      },
      webhooks: { url: `${receiver.url}/events`, realtime: true },
    });
    const id = kickoff.body.kickoff_id as string;
    await api.waitForState(id, ['PAUSED']);
    const [review] = await receiver.waitFor('/review', 1);
    expect(review!.headers.authorization).toBe('Bearer review-secret');
    expect(review!.body).toMatchObject({
      event: 'human_input_requested',
      kickoff_id: id,
      task_id: 'review',
      output: 'A draft about lamps.',
      message: 'Publish this draft?',
      emit: ['approved', 'needs_changes'],
    });
    const [task] = await receiver.waitFor('/task', 1);
    expect(task!.body).toMatchObject({ kickoff_id: id, output: 'A draft about lamps.' });
    await receiver.waitFor('/step', 1);
    const types = async (count: number): Promise<string[]> =>
      (await receiver.waitFor('/events', count)).flatMap((request) =>
        (request.body.events as { type: string }[]).map((event) => event.type),
      );
    const untilPause = await types(1);
    expect(untilPause[0]).toBe('flow_started');
    await until(
      async () => (await types(1)).includes('flow_paused'),
      hangAfterMs,
      () => 'no flow_paused event',
    );
    const streamed = await types(1);
    expect(streamed).toEqual(
      expect.arrayContaining([
        'method_execution_started',
        'method_execution_finished',
        'method_execution_paused',
        'flow_paused',
      ]),
    );
    const sentBeforeResume = receiver.on('/events').length;

    // Only the crew webhook is given again: task, step and event URLs of the kickoff get nothing more.
    await api.post('/resume', {
      execution_id: id,
      task_id: 'review',
      human_feedback: 'approved',
      is_approve: true,
      crewWebhookUrl: `${receiver.url}/crew`,
    });
    await api.waitForState(id, ['SUCCESS']);
    const [ended] = await receiver.waitFor('/crew', 1);
    expect(ended!.body).toMatchObject({
      kickoff_id: id,
      state: 'SUCCESS',
      result: 'PUBLISHED: A draft about lamps.',
    });
    expect(receiver.on('/events')).toHaveLength(sentBeforeResume);

    const events = await readEvents(`${crewd.url}/executions/${id}/events`, {});
    for (const { event, data } of events) {
      expect(executionLogEventSchema.safeParse({ type: event, data }).error).toBeUndefined();
    }
    const methods = events
      .filter((event) => event.event === 'method-start' || event.event === 'method-end')
      .map((event) => `${event.event}:${String(event.data.method)}`);
    expect(methods).toEqual([
      'method-start:draft',
      'method-end:draft',
      'method-start:review',
      'method-start:review',
      'method-end:review',
      'method-start:publish',
      'method-end:publish',
    ]);
  });

  it('fails the execution when a method fails, telling the crew webhook and the stream', async () => {
    const kickoff = await api.post('/kickoff', {
      inputs: { topic: 'broken' },
      crewWebhookUrl: `${receiver.url}/failed`,
    });
    const id = kickoff.body.kickoff_id as string;
    const failed = await api.waitForState(id, ['FAILED']);
    expect(failed.body.error).toEqual(expect.any(String));
    expect(failed.body.error).not.toContain('upstream secret');
    const [ended] = await receiver.waitFor('/failed', 1);
    expect(ended!.body).toMatchObject({ kickoff_id: id, state: 'FAILED' });
    const events = await readEvents(`${crewd.url}/executions/${id}/events`, {});
    expect(events.map((event) => event.event)).toContain('method-fail');
    expect(events.find((event) => event.event === 'method-fail')!.data.method).toBe('draft');
  });
});

describe('a crewAI project declaring a flow', () => {
  it('is served as its flow', async () => {
    const project = userCrew(join(flowsDir, 'review-flow'));
    mkdirSync(join(project, 'flows'));
    renameSync(join(project, 'flow.yaml'), join(project, 'flows', 'review.yaml'));
    writeFileSync(
      join(project, 'pyproject.toml'),
      '[project]\nname = "review_project"\n\n[tool.crewai]\ntype = "flow"\ndefinition = "flows/review.yaml"\n',
    );
    const server = await startCrewd({ crewDir: project, modelUrl: model.url });
    try {
      const projectApi = apiClient(server.url);
      expect((await projectApi.get('/crews')).body.crews).toEqual([
        expect.objectContaining({ kind: 'flow', inputs: ['topic', 'audience'] }),
      ]);
      const id = (await projectApi.post('/kickoff', { inputs: { topic: 'cups' } })).body.kickoff_id as string;
      const paused = await projectApi.waitForState(id, ['PAUSED']);
      expect(paused.body.pending_human_input.task_id).toBe('review');
    } finally {
      await server.close();
    }
  });
});
