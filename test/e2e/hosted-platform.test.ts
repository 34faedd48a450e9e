import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { numberedAnswers, requestsMentioning, userText } from '../support/model-requests.ts';
import { apiClient, crewsDir, startCrewd } from '../support/crewd.ts';

let model: FakeOpenAIServer;
let crewd: RunningServer;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: numberedAnswers() });
  crewd = await startCrewd({ crewDir: join(crewsDir, 'review-crew'), modelUrl: model.url });
  api = apiClient(crewd.url);
});

afterAll(async () => {
  await crewd.close();
  await model.close();
});

async function pausedExecution(inputs: Record<string, unknown>): Promise<string> {
  const kickoff = await api.post('/kickoff', { inputs });
  expect(kickoff.status).toBe(200);
  const id = kickoff.body.kickoff_id as string;
  await api.waitForState(id, ['PAUSED']);
  return id;
}

describe("the hosted platform's interface", () => {
  it('joins crewai_trigger_payload to the first task description only', async () => {
    const payload = { subject: 'New lead', from: 'ada@example.com' };
    await pausedExecution({ product: 'kayaks', audience: 'paddlers', crewai_trigger_payload: payload });

    const first = requestsMentioning(model, 'List three facts about kayaks.');
    expect(first).toHaveLength(1);
    expect(userText(first[0]!)).toContain(
      `List three facts about kayaks.\n\nTrigger Payload: ${JSON.stringify(payload)}`,
    );
    const second = requestsMentioning(model, 'Draft a one-paragraph brief about kayaks');
    expect(second).toHaveLength(1);
    expect(userText(second[0]!)).not.toContain('Trigger Payload');
  });

  it('leaves the prompt alone without a trigger payload, or with an empty one', async () => {
    await pausedExecution({ product: 'sleds', audience: 'kids', crewai_trigger_payload: '' });

    const [first] = requestsMentioning(model, 'List three facts about sleds.');
    expect(userText(first!)).not.toContain('Trigger Payload');
  });

  it('stops an execution through POST /stop/{kickoff_id}, as cancel does', async () => {
    const id = await pausedExecution({ product: 'kites', audience: 'families' });

    const stopped = await api.post(`/stop/${id}`);

    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ kickoff_id: id, state: 'REVOKED' });
    expect((await api.get(`/status/${id}`)).body.state).toBe('REVOKED');
    const unknown = await api.post('/stop/no-such-execution');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
  });

  it('answers 404 for a task the crew does not have, and 400 for a known task that is not waiting', async () => {
    const id = await pausedExecution({ product: 'tents', audience: 'campers' });
    const resume = (taskId: string) =>
      api.post('/resume', { execution_id: id, task_id: taskId, human_feedback: 'ok', is_approve: true });

    const unknownTask = await resume('no_such_task');
    const notWaiting = await resume('gather');

    expect(unknownTask.status).toBe(404);
    expect(unknownTask.body).toEqual({
      error: expect.any(String),
      message: "The crew has no task 'no_such_task'",
      code: 'NOT_FOUND',
    });
    expect(notWaiting.status).toBe(400);
    expect(notWaiting.body.code).toBe('NOT_PENDING_HUMAN_INPUT');
    expect((await api.get(`/status/${id}`)).body.state).toBe('PAUSED');
  });
});
