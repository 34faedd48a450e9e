import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  executionLogEventSchema,
  executionLogEventTypes,
  flowLogEventTypes,
} from '../../src/domain/execution-log.ts';
import type { RunningServer } from '../../src/main.ts';
import { apiClient, crewsDir, startCrewd } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { offeredTools } from '../support/model-requests.ts';
import { readEvents } from '../support/sse.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;
let crewd: RunningServer;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  model = await startFakeOpenAI();
  crewd = await startCrewd({ crewDir: userCrew(join(crewsDir, 'log-crew')), modelUrl: model.url });
  api = apiClient(crewd.url);
});

afterAll(async () => {
  await crewd.close();
  await model.close();
});

const valid = { content: JSON.stringify({ valid: true, feedback: null }) };

it("writes every entry of a crew's execution log as the union in src/domain/execution-log.ts describes it", async () => {
  // The reader calls its file tool, answers, passes its guardrail, then proposes a title twice.
  const replies = [
    { content: 'Tides follow the moon.' },
    valid,
    { content: 'Moon and tides' },
    { content: 'The moon pulls the tides' },
  ];
  model.respondWith((request) =>
    replies.length === 4 && model.requests.length === 1
      ? { toolCalls: [{ name: offeredTools(request)[0]!, arguments: { file_path: 'notes.txt' } }] }
      : replies.shift()!,
  );
  const id = (await api.post('/kickoff', { inputs: { topic: 'tides' } })).body.kickoff_id as string;
  await api.waitForState(id, ['PAUSED']);
  await api.post('/resume', {
    execution_id: id,
    task_id: 'review',
    human_feedback: 'Longer',
    is_approve: false,
  });
  await api.waitForState(id, ['PAUSED']);
  await api.post('/resume', {
    execution_id: id,
    task_id: 'review',
    human_feedback: 'Good',
    is_approve: true,
  });
  await api.waitForState(id, ['SUCCESS', 'FAILED']);

  const events = await readEvents(`${crewd.url}/executions/${id}/events`, {});

  for (const { event, data } of events) {
    const parsed = executionLogEventSchema.safeParse({ type: event, data });
    expect(parsed.error, `${event}: ${JSON.stringify(data)}`).toBeUndefined();
  }
  // A flow's method entries are checked with the flows (test/e2e/flow-serving.test.ts).
  const crewTypes = executionLogEventTypes.filter((type) => !flowLogEventTypes.includes(type));
  expect(new Set(events.map((event) => event.event))).toEqual(new Set(crewTypes));
});
