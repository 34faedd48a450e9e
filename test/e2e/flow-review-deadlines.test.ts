import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { apiClient, startCrewd, tempDatabase } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { movableClock } from '../support/movable-clock.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;
let server: RunningServer;
let api: ReturnType<typeof apiClient>;
const clock = movableClock();

beforeAll(async () => {
  model = await startFakeOpenAI({
    respond: (request) =>
      JSON.stringify(request.body.messages).includes('determine which outcome best matches')
        ? { content: '{"outcome": "needs_changes"}' }
        : { content: 'A draft about rugs.' },
  });
  server = await startCrewd({
    crewDir: userCrew(join(import.meta.dirname, 'flows', 'review-flow')),
    database: tempDatabase(),
    modelUrl: model.url,
    clock: clock.now,
    env: { CREWD_CLAIM_SCAN_MS: '50' },
  });
  api = apiClient(server.url);
});

afterAll(async () => {
  await server.close();
  await model.close();
});

describe("a flow review's deadline", () => {
  it("approves with the method's default outcome when the kickoff's deadline passes", async () => {
    const kickoff = await api.post('/kickoff', {
      inputs: { topic: 'rugs' },
      humanInputDeadline: { after: '30m', onDeadline: 'approve' },
    });
    const id = kickoff.body.kickoff_id as string;
    const paused = await api.waitForState(id, ['PAUSED']);
    expect(paused.body.pending_human_input).toMatchObject({
      task_id: 'review',
      deadline: { is_approve: true },
    });
    clock.advance(30 * 60_000);
    const done = await api.waitForState(id, ['SUCCESS', 'FAILED']);
    expect(done.body.result).toBe('PUBLISHED: A draft about rugs.');
    expect(done.body.reviews).toEqual([
      { task_id: 'review', attempt: 1, is_approve: true, given_by: 'deadline' },
    ]);
  });

  it("routes a deadline's rejection feedback as a person's feedback would be routed", async () => {
    const kickoff = await api.post('/kickoff', {
      inputs: { topic: 'rugs' },
      humanInputDeadline: { after: '30m', onDeadline: { reject: 'Nobody looked at it' } },
    });
    const id = kickoff.body.kickoff_id as string;
    await api.waitForState(id, ['PAUSED']);
    clock.advance(30 * 60_000);
    const done = await api.waitForState(id, ['SUCCESS', 'FAILED']);
    expect(done.body.result).toBe('SENT BACK: Nobody looked at it');
  });
});
