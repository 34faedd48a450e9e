import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { apiClient, startCrewd } from '../support/crewd.ts';
import { userCrew } from '../support/user-crew.ts';

// The example crew answers from its replay file; no model server is ever asked, so this address is never reached.
const unusedModelUrl = 'http://127.0.0.1:9/v1';
const exampleCrew = join(import.meta.dirname, '../../examples/research-crew');
const standIn =
  /^Offline stand-in answer: no model wrote this\. The replay file "research-crew\.replay\.json"/;

let crewd: RunningServer;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  crewd = await startCrewd({ crewDir: userCrew(exampleCrew), modelUrl: unusedModelUrl });
  api = apiClient(crewd.url);
});

afterAll(async () => {
  await crewd?.close();
});

interface Review {
  readonly feedback: string;
  readonly approve: boolean;
}

/** Kicks off, answers each review of the outline in turn over /resume, and answers the final status. */
async function runWithReviews(inputs: Record<string, string>, reviews: readonly Review[]) {
  const kickoff = await api.post('/kickoff', { inputs });
  expect(kickoff.status).toBe(200);
  const id = kickoff.body.kickoff_id as string;
  for (const [index, review] of reviews.entries()) {
    const paused = await api.waitForState(id, ['PAUSED', 'FAILED']);
    expect(paused.body.state).toBe('PAUSED');
    expect(paused.body.pending_human_input).toMatchObject({ task_id: 'outline_task', attempt: index + 1 });
    const resumed = await api.post('/resume', {
      execution_id: id,
      task_id: 'outline_task',
      human_feedback: review.feedback,
      is_approve: review.approve,
    });
    expect(resumed.status).toBe(200);
  }
  return (await api.waitForState(id, ['SUCCESS', 'FAILED'])).body;
}

describe('the example crew offline, over /kickoff and /resume', { timeout: 120_000 }, () => {
  it('answers the recorded inputs with the recorded report, whatever the feedback', async () => {
    const status = await runWithReviews({ topic: 'AI agents', current_year: '2026' }, [
      { feedback: 'Not concrete enough', approve: false },
      { feedback: 'ok', approve: true },
    ]);

    expect(status.state).toBe('SUCCESS');
    expect(status.result).toMatch(/^# AI Agents in 2026: What Works, What It Costs, What to Watch\n/);
    expect(JSON.stringify(status)).not.toContain('Offline stand-in');
  });

  it.each([
    {
      name: "the README's other topic, approved with feedback",
      inputs: { topic: 'Tide pools', current_year: '2026' },
      reviews: [{ feedback: 'ok', approve: true }],
    },
    {
      name: 'a topic in several scripts, approved with empty feedback',
      inputs: { topic: 'Gezeitentümpel, 潮だまり и приливные лужи 🌊', current_year: '二〇二六' },
      reviews: [{ feedback: '', approve: true }],
    },
    {
      name: 'a long topic, rejected with empty feedback, then approved with feedback',
      inputs: { topic: 'tide pools '.repeat(2000).trim(), current_year: '2026' },
      reviews: [
        { feedback: '', approve: false },
        { feedback: 'Better — go ahead <human_feedback>', approve: true },
      ],
    },
    {
      name: 'a blank topic, rejected twice, then approved',
      inputs: { topic: ' ', current_year: '' },
      reviews: [
        { feedback: 'Too broad.', approve: false },
        { feedback: 'Still too broad.', approve: false },
        { feedback: '', approve: true },
      ],
    },
  ])('runs $name to SUCCESS with a labelled stand-in report', async ({ inputs, reviews }) => {
    const status = await runWithReviews(inputs, reviews);

    expect(status.error ?? null).toBeNull();
    expect(status.state).toBe('SUCCESS');
    expect(status.result).toMatch(standIn);
    expect(status.result).toContain('set its llm to e.g. openai/gpt-4o-mini with OPENAI_API_KEY set');
    expect(status.result).toContain('Asked for: Write the report on');
    expect(status.tasks.map((task: { task_id: string }) => task.task_id)).toEqual([
      'research_task',
      'outline_task',
      'report_task',
    ]);
  });
});

describe('the example crew with CREWD_REPLAY_STRICT=1', { timeout: 120_000 }, () => {
  it('fails an execution the recording has no answer for, as exact replay does', async () => {
    const strict = await startCrewd({
      crewDir: userCrew(exampleCrew),
      modelUrl: unusedModelUrl,
      env: { CREWD_REPLAY_STRICT: '1' },
    });
    try {
      const client = apiClient(strict.url);
      const kickoff = await client.post('/kickoff', {
        inputs: { topic: 'Tide pools', current_year: '2026' },
      });
      const status = (await client.waitForState(kickoff.body.kickoff_id, ['SUCCESS', 'FAILED'])).body;

      expect(status.state).toBe('FAILED');
      expect(JSON.stringify(status)).toContain(
        'replay file \\"research-crew.replay.json\\" has no answer for: Current task: Research Tide pools',
      );
    } finally {
      await strict.close();
    }
  });
});
