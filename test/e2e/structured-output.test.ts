import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { userText } from '../support/model-requests.ts';
import { apiClient, crewsDir, startCrewd } from '../support/crewd.ts';

let model: FakeOpenAIServer;
let crewd: RunningServer;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  // Every call costs 10 prompt and 5 completion tokens. Cards about "ferns" are valid; about "moss" never are.
  model = await startFakeOpenAI({
    respond: (request) => {
      const text = userText(request);
      if (!text.includes('as a card')) return { content: 'Some facts.' };
      return { content: text.includes('ferns') ? '{"title": "Ferns", "score": 7}' : '{"title": 5}' };
    },
  });
  crewd = await startCrewd({ crewDir: join(crewsDir, 'structured-crew'), modelUrl: model.url });
  api = apiClient(crewd.url);
});

afterAll(async () => {
  await crewd.close();
  await model.close();
});

describe('structured output', () => {
  it('gives the parsed answer of an output_json task as result_json', async () => {
    const kickoff = await api.post('/kickoff', { inputs: { topic: 'ferns' } });
    const done = await api.waitForState(kickoff.body.kickoff_id, ['SUCCESS', 'FAILED']);

    expect(done.body).toMatchObject({ state: 'SUCCESS', result_json: { title: 'Ferns', score: 7 } });
  });

  it('fails a task whose answers never match its schema, and still counts every call it made', async () => {
    const kickoff = await api.post('/kickoff', { inputs: { topic: 'moss' } });
    const done = await api.waitForState(kickoff.body.kickoff_id, ['SUCCESS', 'FAILED']);

    expect(done.body.state).toBe('FAILED');
    expect(done.body.error).toContain("Task 'card' failed");
    // facts, then the card three times (crewAI's max_retry_limit of 2), each with the one request to correct it:
    // seven answered calls of 15 tokens each.
    const calls = model.requests.filter((request) => userText(request).includes('moss')).length;
    expect(calls).toBe(7);
    expect(done.body.usage_metrics).toEqual({
      total_tokens: 105,
      prompt_tokens: 70,
      completion_tokens: 35,
      successful_requests: 7,
      total_cost_usd: null,
      unpriced_requests: 7,
    });
  });
});
