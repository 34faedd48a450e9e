import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { apiClient, crewsDir, startCrewd } from '../support/crewd.ts';
import { eventsOfText } from '../support/sse.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;
let crewd: RunningServer;

beforeAll(async () => {
  model = await startFakeOpenAI();
  // The crew's tool appends to VISIT_LOG: a temporary file, never one in the work tree.
  process.env.VISIT_LOG = join(mkdtempSync(join(tmpdir(), 'crewd-visits-')), 'visits.log');
  crewd = await startCrewd({ crewDir: userCrew(join(crewsDir, 'tool-crew')), modelUrl: model.url });
});

afterAll(async () => {
  await crewd.close();
  await model.close();
});

describe('tool sources in a running server', () => {
  it('says on /health/ready which tool sources are up', async () => {
    const ready = await apiClient(crewd.url, null).get('/health/ready');

    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: 'ok',
      tools: [
        { source: "the crew's tools/ directory", up: true },
        { source: 'built-in tools', up: true },
      ],
    });
  });

  it("runs the crew's TypeScript tool and reports the call as a step with its input and result", async () => {
    model.enqueue(
      { content: 'Recording it.', toolCalls: [{ name: 'record_visit', arguments: { city: 'Lyon' } }] },
      { content: 'The visit to Lyon is recorded.' },
    );
    const api = apiClient(crewd.url);
    const kickoff = await api.post('/kickoff', { inputs: { city: 'Lyon' } });
    const id = kickoff.body.kickoff_id as string;

    const done = await api.waitForState(id, ['SUCCESS', 'FAILED']);

    expect(done.body.result).toBe('The visit to Lyon is recorded.');
    const toolMessage = model.requests.at(-1)!.body.messages.at(-1);
    expect(toolMessage).toMatchObject({ role: 'tool', content: 'Visit to Lyon recorded.' });
    const events = await api.get(`/executions/${id}/events`);
    const toolStep = (await eventsOfText(String(events.body))).find(
      (event) => event.data.tool === 'record_visit',
    )?.data;
    expect(toolStep).toMatchObject({
      task_id: 'visit',
      agent: 'Traveller',
      thought: 'Recording it.',
      tool_input: { city: 'Lyon' },
      result: 'Visit to Lyon recorded.',
    });
  });
});
