import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SseReader } from '../api/support/sse-reader.ts';
import type { SseBlock } from '../api/support/sse-reader.ts';
import { runCrewd } from '../cli/crewd-command.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { numberedAnswers, requestsMentioning } from '../support/model-requests.ts';
import { apiClient, crewsDir, startCrewd, tempDatabase, testToken } from '../support/crewd.ts';
import { movableClock } from '../support/movable-clock.ts';
import { postgresAvailability, postgresRequired } from '../support/postgres.ts';
import { createTestDatabase } from '../support/postgres-database.ts';
import { userCrew } from '../support/user-crew.ts';

const availability = await postgresAvailability();
if (!availability.reachable && postgresRequired()) {
  throw new Error(`${availability.reason} (set CREWD_SKIP_POSTGRES=1 to skip the PostgreSQL suites)`);
}

let model: FakeOpenAIServer;
const dropDatabases: (() => Promise<void>)[] = [];

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: numberedAnswers() });
});

afterAll(async () => {
  await model.close();
  for (const drop of dropDatabases) await drop();
});

const databases = [
  { name: 'SQLite', reachable: true, open: () => Promise.resolve(tempDatabase()) },
  {
    name: 'PostgreSQL',
    reachable: availability.reachable,
    open: async () => {
      const created = await createTestDatabase();
      dropDatabases.push(created.drop);
      return created.url;
    },
  },
];

const unauthorized = {
  error: 'Unauthorized',
  message: 'Invalid or missing bearer token',
  code: 'UNAUTHORIZED',
};

/** Reads blocks until an event of `type` arrived. */
async function readUntil(reader: SseReader, type: string): Promise<SseBlock[]> {
  const seen: SseBlock[] = [];
  for (let block = await reader.next(); block !== null; block = await reader.next()) {
    if (block.comment !== undefined) continue;
    seen.push(block);
    if (block.event === type) return seen;
  }
  throw new Error(`the stream ended before ${type}: ${JSON.stringify(seen)}`);
}

describe.each(databases)('a user token revoked from another process on $name', ({ reachable, open }) => {
  it.skipIf(!reachable)(
    'ends the stream it opened on a paused execution before the next leg sends anything, feedback included',
    async () => {
      const database = await open();
      const serverClock = movableClock();
      const crewd = await startCrewd({
        crewDir: userCrew(join(crewsDir, 'review-crew')),
        database,
        modelUrl: model.url,
        clock: serverClock.now,
      });
      try {
        const created = await runCrewd(['tokens', 'create', '--user', 'alice', '--database', database]);
        expect(created.code).toBe(0);
        const tokenId = /\b(tok_\S+)\./.exec(created.stdout)![1]!;
        const secret = created.stdout.trimEnd().split('\n').at(-1)!;
        const alice = apiClient(crewd.url, secret);
        const org = apiClient(crewd.url);
        const kickoff = await alice.post('/kickoff', {
          inputs: { product: 'kayaks', audience: 'rental shops' },
        });
        const id = kickoff.body.kickoff_id as string;
        await alice.waitForState(id, ['PAUSED']);
        const stream = await fetch(`${crewd.url}/executions/${id}/events`, {
          headers: { authorization: `Bearer ${secret}` },
        });
        expect(stream.status).toBe(200);
        const reader = new SseReader(stream);
        const beforeRevocation = await readUntil(reader, 'human-input-request');

        const revoked = await runCrewd(['tokens', 'revoke', tokenId, '--database', database]);
        expect(revoked.code).toBe(0);
        // The server may answer from its token cache for less than a second of its clock.
        serverClock.advance(1000);
        const feedback = 'REVIEWER-NOTE: mention the spring discount';
        const resumed = await org.post('/resume', {
          execution_id: id,
          task_id: 'draft',
          human_feedback: feedback,
          is_approve: true,
        });
        expect(resumed.status).toBe(200);

        expect(await reader.rest()).toEqual([{ event: 'error', data: JSON.stringify(unauthorized) }]);
        expect((await org.waitForState(id, ['SUCCESS', 'FAILED'])).body.state).toBe('SUCCESS');
        // The next leg did run with the feedback: an open stream would have carried it.
        expect(requestsMentioning(model, feedback).length).toBeGreaterThan(0);
        const orgStream = new SseReader(
          await fetch(`${crewd.url}/executions/${id}/events`, {
            headers: { authorization: `Bearer ${testToken}` },
          }),
        );
        const everything = await orgStream.rest();
        expect(everything.length).toBeGreaterThan(beforeRevocation.length);
        expect(everything.some((block) => block.data?.includes('REVIEWER-NOTE'))).toBe(true);
        expect((await alice.get(`/status/${id}`)).status).toBe(401);
      } finally {
        await crewd.close();
      }
    },
  );
});
