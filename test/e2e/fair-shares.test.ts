import { join } from 'node:path';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { createTokenService } from '../../src/service/token-service.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { apiClient, crewsDir, startCrewd, tempDatabase } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { HeldPrompts } from '../support/held-prompts.ts';
import { heldNumberedAnswers, requestsMentioning, userText } from '../support/model-requests.ts';
import { oneAtATime, runInterval } from '../support/run-intervals.ts';
import { until } from '../support/until.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;
const held = new HeldPrompts();
const servers: RunningServer[] = [];
const outline = (topic: string): string => `Outline a note about ${topic}.`;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: heldNumberedAnswers(held) });
});

afterEach(async () => {
  held.letAllGo();
  for (const server of servers.splice(0)) await server.close();
  model.requests.length = 0;
});

afterAll(async () => {
  await model.close();
});

/** A server of the plain crew on a fresh database, and the secret of a second organization token on it. */
async function serve(env: Record<string, string>): Promise<{ server: RunningServer; otherToken: string }> {
  const database = tempDatabase();
  const server = await startCrewd({
    crewDir: userCrew(join(crewsDir, 'plain-crew')),
    database,
    modelUrl: model.url,
    env,
  });
  servers.push(server);
  const store = await openSqliteStore(database);
  try {
    const tokens = createTokenService({ store, clock: () => new Date() });
    return { server, otherToken: (await tokens.create({ kind: 'org', name: 'other team' })).secret };
  } finally {
    await store.close();
  }
}

/** The topics in the order their executions asked their first question of the model: the order they started. */
function startOrder(topics: readonly string[]): string[] {
  const order: string[] = [];
  for (const request of model.requests) {
    const topic = topics.find((candidate) => userText(request).includes(outline(candidate)));
    if (topic !== undefined && !order.includes(topic)) order.push(topic);
  }
  return order;
}

async function kickoff(client: ReturnType<typeof apiClient>, topic: string): Promise<string> {
  const response = await client.post('/kickoff', { inputs: { topic } });
  expect(response.status).toBe(200);
  return response.body.kickoff_id as string;
}

const started = (topic: string): Promise<void> =>
  until(
    () => requestsMentioning(model, outline(topic)).length > 0,
    undefined,
    () => `${topic} never started`,
  );

describe('fair shares among tokens', () => {
  it("starts another token's one kickoff next, ahead of a burst queued before it", async () => {
    const { server, otherToken } = await serve({ CREWD_CONCURRENCY: '1' });
    const busy = apiClient(server.url);
    const quiet = apiClient(server.url, otherToken);
    const burst = Array.from({ length: 8 }, (_, index) => `burst item ${String(index).padStart(2, '0')}`);
    held.hold(outline(burst[0]!));

    const ids = [await kickoff(busy, burst[0]!)];
    await started(burst[0]!);
    for (const topic of burst.slice(1)) ids.push(await kickoff(busy, topic));
    ids.push(await kickoff(quiet, 'the quiet one'));
    held.letAllGo();
    for (const id of ids)
      expect((await busy.waitForState(id, ['SUCCESS', 'FAILED'])).body.state).toBe('SUCCESS');

    // One slot: the quiet token's kickoff runs right after the burst's running one, then the burst goes on in order.
    expect(startOrder([...burst, 'the quiet one'])).toEqual([burst[0], 'the quiet one', ...burst.slice(1)]);
  });

  it('runs no more of one token at once than its limit, while other tokens use the free slots', async () => {
    // No claim scan after the start: only the end of the token's run can explain its next one starting.
    const { server, otherToken } = await serve({
      CREWD_CONCURRENCY: '4',
      CREWD_TOKEN_CONCURRENCY: '1',
      CREWD_CLAIM_SCAN_MS: '3600000',
    });
    const busy = apiClient(server.url);
    const quiet = apiClient(server.url, otherToken);
    const topics = ['limited first', 'limited second', 'limited third'];
    for (const topic of [...topics, 'unlimited one']) held.hold(outline(topic));

    const ids = [];
    for (const topic of topics) ids.push(await kickoff(busy, topic));
    const other = await kickoff(quiet, 'unlimited one');
    await started('limited first');
    await started('unlimited one');
    // Three slots are free, yet the token's second and third wait for its first.
    expect((await busy.get(`/status/${ids[1]!}`)).body.state).toBe('PENDING');
    held.letGo(outline('limited first'));
    await started('limited second');
    expect(requestsMentioning(model, outline('limited third'))).toHaveLength(0);
    expect((await busy.get(`/status/${ids[2]!}`)).body.state).toBe('PENDING');

    held.letAllGo();
    for (const id of [...ids, other]) {
      expect((await busy.waitForState(id, ['SUCCESS', 'FAILED'])).body.state).toBe('SUCCESS');
    }
    expect(startOrder(topics)).toEqual(topics);
    expect(oneAtATime(await Promise.all(ids.map((id) => runInterval(busy, id))))).toBe(true);
  });

  it('answers 429 with Retry-After past the queue limit, keeping every kickoff it accepted', async () => {
    const { server, otherToken } = await serve({ CREWD_CONCURRENCY: '1', CREWD_QUEUE_LIMIT: '2' });
    const busy = apiClient(server.url);
    const quiet = apiClient(server.url, otherToken);
    held.hold(outline('running'));
    const ids = [await kickoff(busy, 'running')];
    await started('running');
    ids.push(await kickoff(busy, 'queued one'), await kickoff(busy, 'queued two'));

    const refused = await busy.post('/kickoff', { inputs: { topic: 'one too many' } });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body).toEqual({
      error: 'Too Many Requests',
      message: expect.stringContaining('2 executions waiting') as string,
      code: 'RATE_LIMITED',
      details: { reason: 'queue_full', queue_limit: 2 },
    });
    // The limit is per token: another token's kickoff is accepted.
    ids.push(await kickoff(quiet, 'another team'));

    held.letAllGo();
    for (const id of ids)
      expect((await busy.waitForState(id, ['SUCCESS', 'FAILED'])).body.state).toBe('SUCCESS');
    const listed = await busy.get('/executions?limit=50');
    expect(listed.body.items).toHaveLength(4);
    expect(requestsMentioning(model, outline('one too many'))).toHaveLength(0);
  });
});
