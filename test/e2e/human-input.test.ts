import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import {
  startFakeOpenAI,
  type FakeOpenAIServer,
  type RecordedRequest,
} from '../support/fake-openai-server.ts';
import { numberedAnswers, requestsMentioning, systemText, userText } from '../support/model-requests.ts';
import { apiClient, crewsDir, startCrewd } from '../support/crewd.ts';
import { movableClock } from '../support/movable-clock.ts';
import { recordingLimiter } from '../support/recording-limiter.ts';

let model: FakeOpenAIServer;
let crewd: RunningServer;
let api: ReturnType<typeof apiClient>;
const clock = movableClock();

const requestsFor = (words: string): RecordedRequest[] => requestsMentioning(model, words);

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: numberedAnswers() });
  crewd = await startCrewd({ crewDir: join(crewsDir, 'review-crew'), modelUrl: model.url, clock: clock.now });
  api = apiClient(crewd.url);
});

afterAll(async () => {
  await crewd.close();
  await model.close();
});

async function pausedExecution(product: string): Promise<string> {
  const kickoff = await api.post('/kickoff', { inputs: { product, audience: 'buyers' } });
  expect(kickoff.status).toBe(200);
  await api.waitForState(kickoff.body.kickoff_id, ['PAUSED']);
  return kickoff.body.kickoff_id as string;
}

describe('human input', () => {
  it('pauses after the human-input task with Pending Human Input', async () => {
    const id = await pausedExecution('kettles');
    const status = await api.get(`/status/${id}`);
    expect(status.body.state).toBe('PAUSED');
    expect(status.body.status).toBe('Pending Human Input');
    expect(status.body.pending_human_input).toMatchObject({ task_id: 'draft', attempt: 1 });
    expect(status.body.pending_human_input.output).toEqual(expect.any(String));
    expect(status.body.tasks.map((task: { task_id: string }) => task.task_id)).toEqual(['gather']);
  });

  it('retries the task with the feedback on rejection, then continues on approval', async () => {
    const id = await pausedExecution('toasters');
    const rejected = await api.post('/resume', {
      execution_id: id,
      task_id: 'draft',
      human_feedback: 'Mention the warranty.',
      is_approve: false,
    });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toEqual({ status: 'retrying', message: expect.any(String) });

    const again = await api.waitForState(id, ['PAUSED']);
    expect(again.body.pending_human_input).toMatchObject({ task_id: 'draft', attempt: 2 });
    const drafts = requestsFor('Draft a one-paragraph brief about toasters');
    expect(drafts).toHaveLength(2);
    expect(userText(drafts[1]!)).toMatch(/<human_feedback>\s*Mention the warranty\.\s*<\/human_feedback>/);
    expect(systemText(drafts[1]!)).not.toContain('Mention the warranty');

    const approved = await api.post('/resume', {
      executionId: id,
      taskId: 'draft',
      humanFeedback: 'Good. Keep it short.',
      isApprove: true,
    });
    expect(approved.status).toBe(200);
    expect(approved.body.status).toBe('resumed');

    const done = await api.waitForState(id, ['SUCCESS', 'FAILED']);
    expect(done.body.state).toBe('SUCCESS');
    expect(done.body.tasks.map((task: { task_id: string }) => task.task_id)).toEqual([
      'gather',
      'draft',
      'publish',
    ]);
    // The completed first task never ran again, and the approval reached the later task's context.
    expect(requestsFor('List three facts about toasters')).toHaveLength(1);
    const publish = model.requests.filter(
      (request) =>
        userText(request).includes('Write the final brief') && userText(request).includes('toasters'),
    );
    expect(publish).toHaveLength(1);
    expect(userText(publish[0]!)).toContain('Good. Keep it short.');
    expect(systemText(publish[0]!)).not.toContain('Good. Keep it short.');
  });

  it('counts execution_time from the first start, across the pause, to the end', async () => {
    const id = await pausedExecution('kites');
    const paused = await api.get(`/status/${id}`);
    // An hour passes on the server's clock while the execution waits for its review.
    clock.advance(3_600_000);
    await api.post('/resume', {
      execution_id: id,
      task_id: 'draft',
      human_feedback: 'Fine.',
      is_approve: true,
    });
    const done = await api.waitForState(id, ['SUCCESS', 'FAILED']);

    expect(done.body.state).toBe('SUCCESS');
    // The resumed leg did not start the clock again: the finished time holds the pause, and it never went back.
    expect(done.body.execution_time).toBeGreaterThanOrEqual(paused.body.execution_time + 3600);
    expect((await api.get(`/status/${id}`)).body.execution_time).toBe(done.body.execution_time);
  });

  it('refuses a resume without human_feedback, which the interface requires', async () => {
    const id = await pausedExecution('sleds');
    const missing = await api.post('/resume', { execution_id: id, task_id: 'draft', is_approve: true });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(JSON.stringify(missing.body.details)).toContain('human_feedback');
    // Nothing was lost: the execution still waits, and an empty feedback is feedback.
    expect((await api.get(`/status/${id}`)).body.state).toBe('PAUSED');
    const empty = await api.post('/resume', {
      execution_id: id,
      task_id: 'draft',
      human_feedback: '',
      is_approve: true,
    });
    expect(empty.status).toBe(200);
  });

  it('refuses a resume for a task that is not awaiting feedback with 400', async () => {
    const id = await pausedExecution('lamps');
    const response = await api.post('/resume', {
      execution_id: id,
      task_id: 'gather',
      human_feedback: 'ok',
      is_approve: true,
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      error: 'Invalid Request',
      message: 'Execution is not in pending human input state',
    });
  });

  it('answers 404 for a resume of an unknown execution', async () => {
    const response = await api.post('/resume', {
      execution_id: '00000000-0000-4000-8000-000000000000',
      task_id: 'draft',
      human_feedback: 'ok',
      is_approve: true,
    });
    expect(response.status).toBe(404);
  });

  it('lets exactly one of two concurrent resumes of one pause succeed', async () => {
    const id = await pausedExecution('bicycles');
    const body = { execution_id: id, task_id: 'draft', human_feedback: 'fine', is_approve: true };
    const answers = await Promise.all([api.post('/resume', body), api.post('/resume', body)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    await api.waitForState(id, ['SUCCESS']);
    expect(requestsFor('Write the final brief').filter((r) => userText(r).includes('bicycles'))).toHaveLength(
      1,
    );
  });
});

describe('approval of the last task', () => {
  it('completes the execution at once', async () => {
    const signOff = await startCrewd({ crewDir: join(crewsDir, 'sign-off-crew'), modelUrl: model.url });
    try {
      const client = apiClient(signOff.url);
      const kickoff = await client.post('/kickoff', { inputs: { document: 'the lease' } });
      const id = kickoff.body.kickoff_id as string;
      const paused = await client.waitForState(id, ['PAUSED']);
      const resumed = await client.post('/resume', {
        execution_id: id,
        task_id: 'prepare',
        human_feedback: 'Approved.',
        is_approve: true,
      });
      expect(resumed.body.status).toBe('completed');
      const status = await client.get(`/status/${id}`);
      expect(status.body.state).toBe('SUCCESS');
      expect(status.body.result).toBe(paused.body.pending_human_input.output);
      expect(status.body.pending_human_input).toBeNull();

      const late = await client.post('/resume', {
        execution_id: id,
        task_id: 'prepare',
        human_feedback: 'again',
        is_approve: true,
      });
      expect(late.status).toBe(400);
    } finally {
      await signOff.close();
    }
  });
});

describe('max_rpm across a review', () => {
  it("keeps an agent's calls spaced when the review comes back at once", async () => {
    const paced = await startFakeOpenAI({ respond: () => ({ content: 'Done.' }) });
    // The limiter's clock moves only by its own waits: the review takes no time, so the resumed call must wait
    // the whole spacing, and the recorded waits say how long it was held back.
    const { limiter, waits } = recordingLimiter();
    const server = await startCrewd({
      crewDir: join(crewsDir, 'paced-crew'),
      modelUrl: paced.url,
      rateLimiter: limiter,
    });
    try {
      const client = apiClient(server.url);
      const kickoff = await client.post('/kickoff', { inputs: { document: 'the lease' } });
      const id = kickoff.body.kickoff_id as string;
      await client.waitForState(id, ['PAUSED']);
      expect(paced.requests).toHaveLength(1);
      expect(waits).toEqual([]);
      await client.post('/resume', {
        execution_id: id,
        task_id: 'prepare',
        human_feedback: 'ok',
        is_approve: true,
      });
      expect((await client.waitForState(id, ['SUCCESS', 'FAILED'])).body.state).toBe('SUCCESS');

      // max_rpm 60: the second call was held a full second, although the resumed leg is a new run.
      expect(paced.requests).toHaveLength(2);
      expect(waits).toEqual([1000]);
    } finally {
      await server.close();
      await paced.close();
    }
  });
});
