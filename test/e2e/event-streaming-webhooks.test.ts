import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { numberedAnswers } from '../support/model-requests.ts';
import { apiClient, crewsDir, startCrewd } from '../support/crewd.ts';
import {
  startScriptedReceiver,
  type ReceivedRequest,
  type ScriptedReceiver,
} from '../support/scripted-receiver.ts';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
let model: FakeOpenAIServer;
let receiver: ScriptedReceiver;
let crewd: RunningServer;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: numberedAnswers() });
  receiver = await startScriptedReceiver();
  crewd = await startCrewd({
    crewDir: join(crewsDir, 'review-crew'),
    modelUrl: model.url,
    env: { CREWD_WEBHOOK_SECRET: secret, CREWD_WEBHOOK_RETRY_SCHEDULE: '0,0,0' },
  });
  api = apiClient(crewd.url);
});

afterAll(async () => {
  await crewd.close();
  await receiver.close();
  await model.close();
});

const inputs = { product: 'tents', audience: 'campers' };
/** How long a webhook may take to arrive before a test fails: generous, for a busy machine. */
const arrivalBoundMs = 30_000;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- events are read field by field
const eventsOf = (requests: readonly ReceivedRequest[]): any[] =>
  requests.flatMap((request) => request.body.events);

async function kickoff(webhooks: Record<string, unknown>): Promise<string> {
  const response = await api.post('/kickoff', { inputs, webhooks });
  expect(response.status).toBe(200);
  return response.body.kickoff_id as string;
}

describe('event streaming as on the hosted platform', () => {
  it("sends crewAI's events in signed, batched envelopes with the stream's authentication", async () => {
    const id = await kickoff({
      url: `${receiver.url}/batched`,
      realtime: false,
      authentication: { strategy: 'bearer', token: 'stream-token' },
    });
    await api.waitForState(id, ['PAUSED']);
    // Both tasks of the first leg have ended before the pause.
    await untilTasksCompleted('/batched', 2);
    const events = eventsOf(receiver.on('/batched'));

    expect(events.map((event) => event.type)).toEqual([
      'crew_kickoff_started',
      'task_started',
      'agent_execution_started',
      'llm_call_completed',
      'agent_execution_completed',
      'task_completed',
      'task_started',
      'agent_execution_started',
      'llm_call_completed',
      'agent_execution_completed',
      'task_completed',
    ]);
    for (const event of events) {
      expect(event).toEqual({
        id: expect.stringMatching(/^evt_/),
        execution_id: id,
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        type: expect.any(String),
        data: expect.any(Object),
      });
    }
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
    expect(events[0].data).toEqual({ crew_name: 'review-crew', inputs });
    expect(events[3].data).toMatchObject({
      task_id: 'gather',
      model: 'openai/test-model',
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
    expect(events[5].data).toMatchObject({
      task_id: 'gather',
      task_name: 'gather',
      agent_role: 'Market analyst for tents',
      output: {
        name: 'gather',
        description: 'List three facts about tents.',
        expected_output: 'Three facts, one per line.',
        raw: expect.any(String),
        json_dict: null,
        output_format: 'raw',
      },
    });
    // Batched: fewer requests than events, at least one carrying several.
    const all = receiver.on('/batched');
    expect(all.length).toBeLessThan(events.length);
    expect(all.some((request) => request.body.events.length > 1)).toBe(true);
    const verifier = new Webhook(secret);
    for (const request of all) {
      expect(request.headers.authorization).toBe('Bearer stream-token');
      expect(() =>
        verifier.verify(request.rawBody, {
          'webhook-id': request.headers['webhook-id'] as string,
          'webhook-timestamp': request.headers['webhook-timestamp'] as string,
          'webhook-signature': request.headers['webhook-signature'] as string,
        }),
      ).not.toThrow();
    }
  });

  it('sends only the chosen types, one event a request when realtime, and retries a refused one', async () => {
    receiver.answer('/realtime', (response, _request, count) =>
      count === 1 ? response.writeHead(503).end('busy') : response.writeHead(200).end('ok'),
    );
    const id = await kickoff({
      url: `${receiver.url}/realtime`,
      realtime: true,
      events: ['task_completed', 'crew_kickoff_completed'],
    });
    await api.waitForState(id, ['PAUSED']);
    // The first attempt was refused and repeated under the same webhook-id; the second event follows it.
    const requests = await receiver.waitFor('/realtime', 3, arrivalBoundMs);

    expect(requests[0]!.headers['webhook-id']).toBe(requests[1]!.headers['webhook-id']);
    expect(requests[0]!.rawBody).toBe(requests[1]!.rawBody);
    for (const request of requests) expect(request.body.events).toHaveLength(1);
    expect(eventsOf(requests.slice(1)).map((event) => [event.type, event.data.task_id])).toEqual([
      ['task_completed', 'gather'],
      ['task_completed', 'draft'],
    ]);

    // Given again on /resume, the stream follows the next leg to the end.
    await api.post('/resume', {
      execution_id: id,
      task_id: 'draft',
      human_feedback: 'Good.',
      is_approve: true,
      webhooks: { url: `${receiver.url}/realtime`, realtime: true, events: ['crew_kickoff_completed'] },
    });
    await api.waitForState(id, ['SUCCESS']);
    const [, , , ended] = await receiver.waitFor('/realtime', 4, arrivalBoundMs);
    expect(ended!.body.events).toEqual([
      expect.objectContaining({
        type: 'crew_kickoff_completed',
        data: { crew_name: 'review-crew', output: expect.any(String), total_tokens: 45 },
      }),
    ]);
    const deliveries = await api.get(`/executions/${id}/deliveries`);
    expect(deliveries.body.items.map((item: { kind: string }) => item.kind)).toContain('events');
  });

  it('refuses a stream whose URL is not http(s) or whose authentication is incomplete', async () => {
    const badUrl = await api.post('/kickoff', { inputs, webhooks: { url: 'ftp://example.com/x' } });
    const badAuth = await api.post('/kickoff', {
      inputs,
      webhooks: { url: `${receiver.url}/x`, authentication: { strategy: 'bearer' } },
    });
    const badToken = await api.post('/kickoff', {
      inputs,
      webhooks: { url: `${receiver.url}/x`, authentication: { strategy: 'bearer', token: 'a\nb' } },
    });

    expect([badUrl.status, badAuth.status, badToken.status]).toEqual([400, 400, 400]);
    expect(badToken.body.message).toContain('webhooks.authentication.token');
  });
});

/** Waits for requests to `path` until they carry `tasks` task_completed events. */
async function untilTasksCompleted(path: string, tasks: number): Promise<void> {
  for (let count = 1; ; count += 1) {
    const requests = await receiver.waitFor(path, count, arrivalBoundMs);
    if (eventsOf(requests).filter((event) => event.type === 'task_completed').length >= tasks) return;
  }
}
