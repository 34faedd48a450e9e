import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { createTokenService } from '../../src/service/token-service.ts';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { apiClient, crewsDir, startCrewd } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { HeldPrompts } from '../support/held-prompts.ts';
import { heldNumberedAnswers, requestsMentioning } from '../support/model-requests.ts';
import { postgresAvailability, postgresRequired } from '../support/postgres.ts';
import { createTestDatabase } from '../support/postgres-database.ts';
import { oneAtATime, runInterval } from '../support/run-intervals.ts';
import { until } from '../support/until.ts';
import { userCrew } from '../support/user-crew.ts';

const availability = await postgresAvailability();
if (!availability.reachable && postgresRequired()) {
  throw new Error(`${availability.reason} (set CREWD_SKIP_POSTGRES=1 to skip the PostgreSQL suites)`);
}
const skipReason = availability.reachable ? '' : ` (skipped: ${availability.reason})`;

let model: FakeOpenAIServer;
const held = new HeldPrompts();
const servers: RunningServer[] = [];
let database: { url: string; drop: () => Promise<void> } | undefined;
const outline = (topic: string): string => `Outline a note about ${topic}.`;
const started = (topic: string): Promise<void> =>
  until(
    () => requestsMentioning(model, outline(topic)).length > 0,
    undefined,
    () => `${topic} never started`,
  );

describe.skipIf(!availability.reachable)(`fair shares across processes on PostgreSQL${skipReason}`, () => {
  beforeAll(async () => {
    database = await createTestDatabase();
    model = await startFakeOpenAI({ respond: heldNumberedAnswers(held) });
  });

  afterAll(async () => {
    held.letAllGo();
    for (const server of servers) await server.close();
    await model?.close();
    await database?.drop();
  });

  it("keeps a token's limit across two processes while another token uses the free slots", async () => {
    const crewDir = userCrew(join(crewsDir, 'plain-crew'));
    const env = { CREWD_CONCURRENCY: '2', CREWD_TOKEN_CONCURRENCY: '1' };
    for (let index = 0; index < 2; index += 1) {
      servers.push(await startCrewd({ crewDir, database: database!.url, modelUrl: model.url, env }));
    }
    const [first, second] = servers as [RunningServer, RunningServer];
    const store = await openPostgresStore(database!.url);
    const otherToken = await createTokenService({ store, clock: () => new Date() })
      .create({ kind: 'org' })
      .finally(() => store.close());
    const topics = ['limited one', 'limited two', 'limited three'];
    for (const topic of [...topics, 'other team']) held.hold(outline(topic));

    // The token's kickoffs land on both processes; each has room for two.
    const ids = [];
    for (const [index, topic] of topics.entries()) {
      const server = index % 2 === 0 ? first : second;
      const kickoff = await apiClient(server.url).post('/kickoff', { inputs: { topic } });
      ids.push(kickoff.body.kickoff_id as string);
    }
    const other = await apiClient(second.url, otherToken.secret).post('/kickoff', {
      inputs: { topic: 'other team' },
    });
    await started('other team');
    await until(() => topics.some((topic) => requestsMentioning(model, outline(topic)).length > 0));
    const running = (): string[] =>
      topics.filter((topic) => requestsMentioning(model, outline(topic)).length > 0);
    expect(running()).toHaveLength(1);

    held.letAllGo();
    const api = apiClient(first.url);
    for (const id of [...ids, other.body.kickoff_id as string]) {
      expect((await api.waitForState(id, ['SUCCESS', 'FAILED'])).body.state).toBe('SUCCESS');
    }
    expect(running()).toHaveLength(3);
    // Never two of the token's executions at once, on either process.
    expect(oneAtATime(await Promise.all(ids.map((id) => runInterval(api, id))))).toBe(true);
  });
});
