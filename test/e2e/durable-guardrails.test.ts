import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeOpenAI,
  type FakeOpenAIServer,
  type RecordedRequest,
} from '../support/fake-openai-server.ts';
import { systemText, userText } from '../support/model-requests.ts';
import { apiClient, crewsDir, spawnCrewd, tempDatabase, type CrewdProcess } from '../support/crewd.ts';
import { until } from '../support/until.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;
/** Holds the agent's second answer until the test lets it go (never, for the first process). */
let retryAnswer: Promise<unknown> = new Promise(() => undefined);
const running: CrewdProcess[] = [];

const isCheck = (request: RecordedRequest): boolean => systemText(request).includes('Guardrail Agent');
const isRetry = (request: RecordedRequest): boolean =>
  !isCheck(request) && userText(request).includes('Previous attempt failed validation');
const chatRequests = (): RecordedRequest[] =>
  model.requests.filter((request) => request.path.endsWith('/chat/completions'));

beforeAll(async () => {
  model = await startFakeOpenAI({
    respond: (request) => {
      if (isCheck(request)) {
        const warm = userText(request).includes('dear');
        return { content: JSON.stringify({ valid: warm, feedback: warm ? null : 'Be warmer' }) };
      }
      return isRetry(request)
        ? { content: 'Hello, dear Lyon.', heldUntil: retryAnswer }
        : { content: 'Hello, Lyon.' };
    },
  });
});

afterAll(async () => {
  for (const crewd of running) crewd.child.kill('SIGKILL');
  await model.close();
});

const guardrailCrew = userCrew(join(crewsDir, 'guardrail-crew'));

async function serve(database: string): Promise<CrewdProcess> {
  const crewd = await spawnCrewd({
    crewDir: guardrailCrew,
    database,
    modelUrl: model.url,
    // A killed process cannot release its execution: the next one continues it once the lease runs out.
    env: { CREWD_EXECUTION_LEASE_MS: '1000' },
  });
  running.push(crewd);
  return crewd;
}

describe('guardrails across a crash', () => {
  it('does not check again, nor report again, a check that completed before a SIGKILL', async () => {
    const database = tempDatabase();
    const first = await serve(database);
    const kickoff = await apiClient(first.url).post('/kickoff', { inputs: { city: 'Lyon' } });
    const id = kickoff.body.kickoff_id as string;
    // The model's check failed the first answer and the agent is at work on the second: kill the process there.
    await until(() => chatRequests().some(isRetry));
    first.child.kill('SIGKILL');
    await first.exited;
    const askedBefore = chatRequests().length;

    retryAnswer = Promise.resolve();
    const second = await serve(database);
    const api = apiClient(second.url);
    const done = await api.waitForState(id, ['SUCCESS', 'FAILED']);

    expect(done.body.state).toBe('SUCCESS');
    expect(done.body.result).toBe('Hello, dear Lyon.');
    // Only the agent's unanswered retry and the check of its answer are made after the restart.
    const later = chatRequests().slice(askedBefore);
    expect(
      later.map((request) => (isCheck(request) ? 'check' : isRetry(request) ? 'retry' : 'first')),
    ).toEqual(['retry', 'check']);
    const log = String((await api.get(`/executions/${id}/events`)).body)
      .split('\n')
      .filter((line) => line.startsWith('event: guardrail-'))
      .map((line) => line.slice(7));
    expect(log).toEqual([
      'guardrail-start',
      'guardrail-end',
      'guardrail-start',
      'guardrail-end',
      'guardrail-start',
      'guardrail-end',
    ]);
  });
});
