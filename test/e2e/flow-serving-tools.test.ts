import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { repoRoot } from '../cli/crewd-command.ts';
import { apiClient, startCrewd } from '../support/crewd.ts';
import {
  startFakeOpenAI,
  type FakeOpenAIServer,
  type RecordedRequest,
} from '../support/fake-openai-server.ts';
import { userCrew } from '../support/user-crew.ts';

const fixtures = join(repoRoot, 'test/fixtures/flows');

interface OfferedTool {
  function: { name: string };
}

/** Calls every tool it is offered once with the arguments the fixture's tools take, then answers with their results. */
function toolUser(request: RecordedRequest) {
  const messages = request.body.messages as { role: string; content: string }[];
  const results = messages.filter((message) => message.role === 'tool').map((message) => message.content);
  if (results.length > 0) return { content: results.join(' | ') };
  const argumentsOf: Record<string, unknown> = {
    lookup_order: { order: 'A-17' },
    courier_status: { parcel: 'P-1' },
    refund_policy: { amount: 30 },
  };
  const offered = ((request.body.tools ?? []) as OfferedTool[]).map((tool) => tool.function.name);
  return { toolCalls: offered.map((name) => ({ name, arguments: argumentsOf[name] ?? {} })) };
}

describe('a served flow opens as crewd run opens it', () => {
  let model: FakeOpenAIServer;
  let crewd: RunningServer | undefined;
  afterEach(async () => {
    await crewd?.close();
    await model.close();
  });

  async function serve(fixture: string, env: Record<string, string> = {}) {
    crewd = await startCrewd({
      crewDir: userCrew(join(fixtures, fixture)),
      modelUrl: model.url,
      env: { PATH: process.env.PATH ?? '', CREWD_PYTHON: 'python3', MODEL: 'openai/gpt-4o-mini', ...env },
    });
    return apiClient(crewd.url);
  }

  it("gives its agents and inline crews' agents their TypeScript and Python tools", async () => {
    model = await startFakeOpenAI({ respond: toolUser });
    const api = await serve('tooled-flow');
    const kickoff = await api.post('/kickoff', { inputs: {} });
    expect(kickoff.status).toBe(200);
    const done = await api.waitForState(kickoff.body.kickoff_id as string, ['SUCCESS', 'FAILED']);
    expect(done.body).toMatchObject({ state: 'SUCCESS', result: 'refund of 30 EUR: allowed' });
    expect(done.body.flow_methods).toEqual(['investigate', 'refund']);
  });

  it("runs code, script and tool actions in the project's Python, its Pydantic state's fields as inputs", async () => {
    model = await startFakeOpenAI();
    const api = await serve('python-flow', { CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION: '1' });
    expect((await api.get('/inputs')).body.inputs).toContain('owner');
    const missing = await api.post('/kickoff', { inputs: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.details).toMatchObject({ missing_inputs: ['owner'] });
    const kickoff = await api.post('/kickoff', { inputs: { owner: 'Ada' } });
    const done = await api.waitForState(kickoff.body.kickoff_id as string, ['SUCCESS', 'FAILED']);
    expect(done.body).toMatchObject({
      state: 'SUCCESS',
      result: 'Ada 15 30 opened for Ada',
      flow_state: { owner: 'Ada', total: 15, entries: ['opened for Ada'] },
    });
    expect(model.requests).toHaveLength(0);
  });
});
