import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import {
  startFakeOpenAI,
  type FakeOpenAIServer,
  type RecordedRequest,
} from '../support/fake-openai-server.ts';
import { startScriptedReceiver, type ScriptedReceiver } from '../support/scripted-receiver.ts';
import { apiClient, startCrewd } from '../support/crewd.ts';
import { movableClock } from '../support/movable-clock.ts';
import { until, hangAfterMs } from '../support/until.ts';
import { userCrew } from '../support/user-crew.ts';

/** Each draft is numbered, so a retried one is told apart from the first. */
let drafts = 0;
const messagesOf = (request: RecordedRequest): string => JSON.stringify(request.body.messages);

let model: FakeOpenAIServer;
let receiver: ScriptedReceiver;
let crewd: RunningServer;
let api: ReturnType<typeof apiClient>;
const clock = movableClock();

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: () => ({ content: `Draft number ${(drafts += 1)}.` }) });
  receiver = await startScriptedReceiver();
  crewd = await startCrewd({
    crewDir: userCrew(join(import.meta.dirname, 'flows', 'retry-flow')),
    modelUrl: model.url,
    clock: clock.now,
    env: { CREWD_CLAIM_SCAN_MS: '50' },
  });
  api = apiClient(crewd.url);
});

afterAll(async () => {
  await crewd.close();
  await receiver.close();
  await model.close();
});

const chatCalls = (): RecordedRequest[] =>
  model.requests.filter((request) => request.path.endsWith('/chat/completions'));

describe('rejecting the review of a flow method without outcomes', () => {
  it('runs the method again with the feedback, asks for review again, and goes on once approved', async () => {
    const kickoff = await api.post('/kickoff', {
      inputs: { topic: 'kettles' },
      humanInputWebhook: { url: `${receiver.url}/review` },
    });
    const id = kickoff.body.kickoff_id as string;
    await api.waitForState(id, ['PAUSED']);
    const [first] = await receiver.waitFor('/review', 1);
    expect(first!.body).toMatchObject({ task_id: 'draft', output: 'Draft number 1.' });
    expect(chatCalls()).toHaveLength(1);

    const rejected = await api.post('/resume', {
      execution_id: id,
      task_id: 'draft',
      human_feedback: 'Mention that they whistle.',
      is_approve: false,
    });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toEqual({ status: 'retrying', message: expect.any(String) });
    const [, second] = await receiver.waitFor('/review', 2);
    expect(second!.body).toMatchObject({ task_id: 'draft', output: 'Draft number 2.' });
    const paused = await api.waitForState(id, ['PAUSED']);
    expect(paused.body.pending_human_input).toMatchObject({
      task_id: 'draft',
      output: 'Draft number 2.',
      attempt: 2,
    });
    expect(chatCalls()).toHaveLength(2);
    const retried = messagesOf(chatCalls()[1]!);
    expect(retried).toContain('Mention that they whistle.');
    expect(retried).toContain('Draft number 1.');
    expect(retried).toContain('Draft one line about kettles.');
    expect(messagesOf(chatCalls()[0]!)).not.toContain('whistle');

    const approved = await api.post('/resume', {
      execution_id: id,
      task_id: 'draft',
      human_feedback: 'Good now.',
      is_approve: true,
    });
    expect(approved.body).toEqual({ status: 'resumed', message: expect.any(String) });
    const done = await api.waitForState(id, ['SUCCESS']);
    expect(done.body.result).toBe('PUBLISHED: Draft number 2.');
    expect(chatCalls()).toHaveLength(2);
    expect(receiver.on('/review')).toHaveLength(2);
  });

  it('retries again when the retried output is rejected too, its attempt growing', async () => {
    const kickoff = await api.post('/kickoff', { inputs: { topic: 'mugs' } });
    const id = kickoff.body.kickoff_id as string;
    await api.waitForState(id, ['PAUSED']);
    const answer = { execution_id: id, task_id: 'draft', human_feedback: 'Shorter.', is_approve: false };
    expect((await api.post('/resume', answer)).body.status).toBe('retrying');
    await api.waitForState(id, ['PAUSED']);
    const status = await api.get(`/status/${id}`);
    expect(status.body.pending_human_input).toMatchObject({ attempt: 2 });
    expect((await api.post('/resume', answer)).body.status).toBe('retrying');
    const again = await api.waitForState(id, ['PAUSED']);
    expect(again.body.pending_human_input).toMatchObject({ attempt: 3 });
  });

  it("runs the method again on a deadline's rejection, with the deadline's feedback", async () => {
    const kickoff = await api.post('/kickoff', {
      inputs: { topic: 'rugs' },
      humanInputDeadline: { after: '30m', onDeadline: { reject: 'Nobody looked at it' } },
    });
    const id = kickoff.body.kickoff_id as string;
    await api.waitForState(id, ['PAUSED']);
    const before = chatCalls().length;
    clock.advance(30 * 60_000);
    await until(async () => {
      const status = await api.get(`/status/${id}`);
      return status.body.pending_human_input?.attempt === 2;
    }, hangAfterMs);
    expect(chatCalls()).toHaveLength(before + 1);
    expect(messagesOf(chatCalls().at(-1)!)).toContain('Nobody looked at it');
  });
});
