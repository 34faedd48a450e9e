import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { apiClient, crewsDir, startCrewd } from '../support/crewd.ts';
import { startScriptedReceiver, type ScriptedReceiver } from '../support/scripted-receiver.ts';
import { eventsOfText } from '../support/sse.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;
let receiver: ScriptedReceiver;
let crewd: RunningServer;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  model = await startFakeOpenAI();
  receiver = await startScriptedReceiver();
  crewd = await startCrewd({
    crewDir: userCrew(join(crewsDir, 'guardrail-crew')),
    modelUrl: model.url,
    env: { CREWD_WEBHOOK_RETRY_SCHEDULE: '0,0,0' },
  });
  api = apiClient(crewd.url);
});

afterAll(async () => {
  await crewd.close();
  await receiver.close();
  await model.close();
});

/** The data of every entry of an execution's event log, with its event type. */
async function eventLog(id: string): Promise<{ event: string; data: Record<string, unknown> }[]> {
  const response = await api.get(`/executions/${id}/events`);
  return (await eventsOfText(String(response.body))).map(({ event, data }) => ({ event, data }));
}

const friendly = { content: JSON.stringify({ valid: true, feedback: null }) };

describe('task guardrails in a running server', () => {
  it("retries past a failing function guardrail, checks the string one, and streams each check under crewAI's names", async () => {
    model.enqueue({ content: 'HELLO LYON' }, { content: 'Hello, Lyon!  ' }, friendly);
    const kickoff = await api.post('/kickoff', {
      inputs: { city: 'Lyon' },
      webhooks: {
        url: `${receiver.url}/stream`,
        realtime: true,
        events: ['llm_guardrail_started', 'llm_guardrail_completed'],
      },
    });
    const id = kickoff.body.kickoff_id as string;

    const done = await api.waitForState(id, ['SUCCESS', 'FAILED']);

    expect(done.body.state).toBe('SUCCESS');
    // The function passed the answer on trimmed.
    expect(done.body.result).toBe('Hello, Lyon!');
    const checks = (await eventLog(id)).filter((entry) => entry.event.startsWith('guardrail-'));
    expect(checks.map(({ event, data }) => [event, data.guardrail, data.retry_count, data.success])).toEqual([
      ['guardrail-start', 'no_shouting', 0, undefined],
      ['guardrail-end', 'no_shouting', 0, false],
      ['guardrail-start', 'no_shouting', 1, undefined],
      ['guardrail-end', 'no_shouting', 1, true],
      ['guardrail-start', 'The greeting must be friendly', 0, undefined],
      ['guardrail-end', 'The greeting must be friendly', 0, true],
    ]);
    expect(checks[1]!.data).toMatchObject({
      task_id: 'greet',
      agent: 'Greeter',
      guardrail_type: 'function',
      error: 'Do not shout: write in lower case',
    });
    const streamed = (await receiver.waitFor('/stream', 6, 30_000)).flatMap(
      (request) => request.body.events as { type: string; data: Record<string, unknown> }[],
    );
    expect(streamed.map((event) => [event.type, event.data.guardrail_type, event.data.retry_count])).toEqual([
      ['llm_guardrail_started', 'function', 0],
      ['llm_guardrail_completed', 'function', 0],
      ['llm_guardrail_started', 'function', 1],
      ['llm_guardrail_completed', 'function', 1],
      ['llm_guardrail_started', 'llm', 0],
      ['llm_guardrail_completed', 'llm', 0],
    ]);
    expect(streamed[1]!.data).toMatchObject({
      task_name: 'greet',
      agent_role: 'Greeter',
      guardrail_name: 'no_shouting',
      success: false,
      error: 'Do not shout: write in lower case',
    });
  });

  it('fails the execution with the last feedback once the retries are spent', async () => {
    model.enqueue({ content: 'HELLO' }, { content: 'HELLO!' }, { content: 'HELLO!!' });
    const kickoff = await api.post('/kickoff', { inputs: { city: 'Lyon' } });
    const id = kickoff.body.kickoff_id as string;

    const done = await api.waitForState(id, ['SUCCESS', 'FAILED']);

    expect(done.body.state).toBe('FAILED');
    expect(done.body.error).toBe(
      "Task 'greet' failed: its guardrail 'no_shouting' did not pass after 2 retries. Last feedback: Do not shout: write in lower case",
    );
  });
});
