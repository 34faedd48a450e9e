import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { apiClient, startCrewd } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { offeredTools, toolResultText, userText } from '../support/model-requests.ts';

const project = resolve(import.meta.dirname, '../fixtures/crewai-projects/reading_room');

let model: FakeOpenAIServer;
let crewd: RunningServer;

beforeAll(async () => {
  model = await startFakeOpenAI({
    // Each agent first calls its one tool with no arguments (the file is preset), then answers with what it read.
    respond: (request) => {
      const result = toolResultText(request);
      if (result !== undefined) return { content: `Read: ${result}` };
      return { toolCalls: [{ name: offeredTools(request)[0]!, arguments: {} }] };
    },
  });
  crewd = await startCrewd({
    crewDir: project,
    modelUrl: model.url,
    env: { MODEL: 'openai/gpt-4o-mini' },
  });
});

afterAll(async () => {
  await crewd.close();
  await model.close();
});

describe('built-in tools crew.py instantiates with arguments', () => {
  it('gives each agent the tool with its own preset, which the model neither sees nor passes', async () => {
    const api = apiClient(crewd.url);
    const kickoff = await api.post('/kickoff', { inputs: { subject: 'the library wing' } });
    const done = await api.waitForState(kickoff.body.kickoff_id, ['SUCCESS', 'FAILED']);

    expect(done.body.state).toBe('SUCCESS');
    const [decision, cost] = done.body.tasks as { output: string }[];
    expect(decision!.output).toContain('the board approved the new library wing');
    expect(cost!.output).toContain('1.2 million for the wing');
    const firstCalls = model.requests.filter((request) => toolResultText(request) === undefined);
    expect(firstCalls.map((request) => userText(request).includes('library wing'))).toEqual([true, true]);
    for (const request of firstCalls) {
      const [tool] = request.body.tools as { function: { parameters: { properties?: object } } }[];
      expect(Object.keys(tool!.function.parameters.properties ?? {})).not.toContain('file_path');
    }
  });
});
