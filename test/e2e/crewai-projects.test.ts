import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { apiClient, startCrewd } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { userText } from '../support/model-requests.ts';

const projects = resolve(import.meta.dirname, '../fixtures/crewai-projects');

let model: FakeOpenAIServer;
let crewd: RunningServer;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  model = await startFakeOpenAI({
    respond: (request) => {
      const text = userText(request);
      if (text.includes('most important developments')) {
        return {
          content: JSON.stringify({
            developments: [{ headline: 'Fabs announced', reason: 'Capacity doubles' }],
          }),
        };
      }
      // The brief's confidence must be one of the enum's values; "sure" never is.
      const confidence = text.includes('semiconductors') ? 'high' : 'sure';
      return { content: JSON.stringify({ title: 'Brief', summary: 'Short.', confidence }) };
    },
  });
  crewd = await startCrewd({
    crewDir: join(projects, 'market_brief'),
    modelUrl: model.url,
    env: { MODEL: 'openai/gpt-4.1-nano' },
  });
  api = apiClient(crewd.url);
});

afterAll(async () => {
  await crewd.close();
  await model.close();
});

describe('a crewAI project with its agents and output classes set in crew.py', () => {
  it('serves the inputs its YAML and crew.py use', async () => {
    const inputs = await api.get('/inputs');

    expect(inputs.body).toEqual({ inputs: ['sector'] });
  });

  it("runs with crew.py's task agents and checks answers against the Pydantic classes' schemas", async () => {
    const kickoff = await api.post('/kickoff', { inputs: { sector: 'semiconductors' } });
    const done = await api.waitForState(kickoff.body.kickoff_id, ['SUCCESS', 'FAILED']);

    expect(done.body).toMatchObject({
      state: 'SUCCESS',
      result_json: { title: 'Brief', summary: 'Short.', confidence: 'high' },
    });
    const prompts = model.requests.filter((request) => userText(request).includes('semiconductors'));
    // The analyst's model comes from crew.py (ANALYST_MODEL's default there); the editor takes MODEL.
    expect(prompts.map((request) => request.body.model)).toEqual(['gpt-4o-mini', 'gpt-4.1-nano']);
    expect(userText(prompts[1]!)).toContain('Fabs announced');
  });

  it("fails a task whose answer is outside the Pydantic Enum's values", async () => {
    const kickoff = await api.post('/kickoff', { inputs: { sector: 'shipping' } });
    const done = await api.waitForState(kickoff.body.kickoff_id, ['SUCCESS', 'FAILED']);

    expect(done.body.state).toBe('FAILED');
    expect(done.body.error).toContain("Task 'brief_task' failed");
  });
});
