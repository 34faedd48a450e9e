import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, crewsDir, spawnCrewd, type CrewdProcess } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { HeldPrompts } from '../support/held-prompts.ts';
import { heldNumberedAnswers, requestsMentioning } from '../support/model-requests.ts';
import { postgresAvailability, postgresRequired } from '../support/postgres.ts';
import { createTestDatabase } from '../support/postgres-database.ts';
import { until } from '../support/until.ts';

const availability = await postgresAvailability();
if (!availability.reachable && postgresRequired()) {
  throw new Error(`${availability.reason} (set CREWD_SKIP_POSTGRES=1 to skip the PostgreSQL suites)`);
}
const skipReason = availability.reachable ? '' : ` (skipped: ${availability.reason})`;

let model: FakeOpenAIServer;
const held = new HeldPrompts();
const processes: CrewdProcess[] = [];
let database: { url: string; drop: () => Promise<void> } | undefined;

const outlinePrompt = (topic: string): string => `Outline a note about ${topic}`;

async function serve(env: Record<string, string> = {}): Promise<CrewdProcess> {
  const crewd = await spawnCrewd({
    crewDir: join(crewsDir, 'plain-crew'),
    database: database!.url,
    modelUrl: model.url,
    env: {
      // No lease runs out and no claim scan runs after start-up: only a notice can explain work moving.
      CREWD_EXECUTION_LEASE_MS: '300000',
      CREWD_CLAIM_SCAN_MS: '3600000',
      ...env,
    },
  });
  processes.push(crewd);
  return crewd;
}

describe.skipIf(!availability.reachable)(`a burst of kickoffs on one of two processes${skipReason}`, () => {
  beforeAll(async () => {
    database = await createTestDatabase();
    model = await startFakeOpenAI({ respond: heldNumberedAnswers(held) });
  });

  afterAll(async () => {
    for (const crewd of processes) crewd.child.kill('SIGKILL');
    await Promise.all(processes.map((crewd) => crewd.exited));
    held.letAllGo();
    await model?.close();
    await database?.drop();
  });

  it('starts on the idle process at once what the busy one has no room for', async () => {
    const busy = await serve({ CREWD_CONCURRENCY: '2' });
    const idle = await serve();
    const topics = ['gulls', 'terns', 'puffins', 'gannets', 'cormorants', 'petrels'];
    for (const topic of topics) held.hold(outlinePrompt(topic));

    const kickoffs = await Promise.all(
      topics.map((topic) => apiClient(busy.url).post('/kickoff', { inputs: { topic } })),
    );
    expect(kickoffs.map((kickoff) => kickoff.status)).toEqual(topics.map(() => 200));
    // Every execution is on its first model call at once: two on the busy process, the other four on the idle one.
    await until(
      () => topics.every((topic) => requestsMentioning(model, outlinePrompt(topic)).length === 1),
      undefined,
      () =>
        `outlines asked for: ${topics.filter((topic) => requestsMentioning(model, outlinePrompt(topic)).length > 0).join(', ')}`,
    );

    held.letAllGo();
    for (const kickoff of kickoffs) {
      const done = await apiClient(idle.url).waitForState(kickoff.body.kickoff_id as string, [
        'SUCCESS',
        'FAILED',
      ]);
      expect(done.body.state).toBe('SUCCESS');
    }
    for (const topic of topics) expect(requestsMentioning(model, outlinePrompt(topic))).toHaveLength(1);
  });
});
