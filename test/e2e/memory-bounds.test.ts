import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPageBytes } from '../../src/service/durable-execution-service.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { apiClient, crewsDir, startCrewd, tempDatabase, testToken } from '../support/crewd.ts';
import { until } from '../support/until.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: () => ({ content: 'Done.' }) });
});

afterAll(async () => {
  await model.close();
});

describe('what one token can make crewd hold', () => {
  it('pages GET /executions by size: executions with the largest meta come in several pages, every one once', async () => {
    const crewd = await startCrewd({ crewDir: join(crewsDir, 'plain-crew'), modelUrl: model.url });
    try {
      const api = apiClient(crewd.url);
      // Just under the 16 KiB limit: the largest meta a client may send.
      const meta = { note: 'm'.repeat(16 * 1024 - 20) };
      const ids = new Set<string>();
      for (let index = 0; index < 60; index += 1) {
        const kickoff = await api.post('/kickoff', { inputs: { topic: `topic ${index}` }, meta });
        expect(kickoff.status).toBe(200);
        ids.add(kickoff.body.kickoff_id as string);
      }

      const listed: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const response = await fetch(
          `${crewd.url}/executions?limit=100${cursor === null ? '' : `&cursor=${cursor}`}`,
          { headers: { authorization: `Bearer ${testToken}` } },
        );
        const text = await response.text();
        expect(response.status).toBe(200);
        // The estimate is close: a page's JSON stays within a quarter of the budget past it.
        expect(Buffer.byteLength(text)).toBeLessThan(listPageBytes * 1.25);
        const page = JSON.parse(text) as { items: { kickoff_id: string }[]; next_cursor: string | null };
        listed.push(...page.items.map((item) => item.kickoff_id));
        cursor = page.next_cursor;
        pages += 1;
      } while (cursor !== null);

      expect(pages).toBeGreaterThan(1);
      expect(listed).toHaveLength(60);
      expect(new Set(listed)).toEqual(ids);
    } finally {
      await crewd.close();
    }
  });

  /** The body of a GET as text, with the test token. */
  async function getText(url: string): Promise<string> {
    const response = await fetch(url, { headers: { authorization: `Bearer ${testToken}` } });
    expect(response.status).toBe(200);
    return response.text();
  }

  /** What the store holds on disk: the SQLite file and its write-ahead log. */
  function storedBytes(database: string): number {
    const wal = `${database}-wal`;
    return statSync(database).size + (existsSync(wal) ? statSync(wal).size : 0);
  }

  it('fails a task whose model answers 50 MB, reads no more of it than the limit, and keeps every answer small', async () => {
    const database = tempDatabase();
    const crewd = await startCrewd({
      crewDir: userCrew(join(crewsDir, 'plain-crew')),
      modelUrl: model.url,
      database,
    });
    try {
      const api = apiClient(crewd.url);
      const huge = model.huge.length;
      const requestsBefore = model.requests.length;
      model.enqueue({ hugeContentBytes: 50 * 1024 * 1024 });
      const kickoff = await api.post('/kickoff', { inputs: { topic: 'tides' } });
      const id = kickoff.body.kickoff_id as string;

      const status = await api.waitForState(id, ['FAILED']);

      const message =
        "Task 'outline' failed: the model's response is larger than 2 MiB, the most crewd reads of one model " +
        'response; it was not read further (limit the answer with max_tokens)';
      expect(status.body).toMatchObject({ result: message, error: message, tasks: [], last_step: null });
      // crewd hung up once it had read its limit: the server never got to write the whole answer.
      await until(() => model.huge.length > huge);
      expect(model.huge.slice(huge)).toEqual([{ written: expect.any(Number) as number, cutShort: true }]);
      expect(model.huge[huge]!.written).toBeLessThan(25 * 1024 * 1024);
      // Not retried: the same request would get the same answer.
      expect(model.requests.length - requestsBefore).toBe(1);

      const statusText = await getText(`${crewd.url}/status/${id}`);
      const listText = await getText(`${crewd.url}/executions?limit=5`);
      const eventsText = await getText(`${crewd.url}/executions/${id}/events`);
      for (const text of [statusText, listText, eventsText]) {
        expect(text).not.toContain('xxxxxxxx');
        expect(Buffer.byteLength(text)).toBeLessThan(16 * 1024);
      }
      expect(storedBytes(database)).toBeLessThan(8 * 1024 * 1024);
    } finally {
      await crewd.close();
    }
  });

  it('keeps the status of an execution with a 256 KiB input small: the input is not repeated in it', async () => {
    const crewd = await startCrewd({ crewDir: userCrew(join(crewsDir, 'plain-crew')), modelUrl: model.url });
    try {
      const api = apiClient(crewd.url);
      // The largest input a kickoff takes, in every task's description.
      const topic = 't'.repeat(256 * 1024 - 20);
      const kickoff = await api.post('/kickoff', { inputs: { topic } });
      expect(kickoff.status).toBe(200);
      const id = kickoff.body.kickoff_id as string;
      await api.waitForState(id, ['SUCCESS']);

      const statusText = await getText(`${crewd.url}/status/${id}`);
      const listText = await getText(`${crewd.url}/executions?limit=5`);
      // Three task descriptions and the last step's prompt, each clipped to 4,096 characters.
      expect(Buffer.byteLength(statusText)).toBeLessThan(24 * 1024);
      expect(Buffer.byteLength(listText)).toBeLessThan(5 * 24 * 1024);
      const status = JSON.parse(statusText) as { tasks: { description: string }[] };
      expect(status.tasks[0]!.description).toMatch(
        /^Outline a note about t+… \[clipped: \d+ more characters\]$/,
      );
    } finally {
      await crewd.close();
    }
  });

  it('keeps a long answer whole once in the status, as result and in tasks[], and its copies clipped', async () => {
    const crewd = await startCrewd({ crewDir: userCrew(join(crewsDir, 'plain-crew')), modelUrl: model.url });
    try {
      const api = apiClient(crewd.url);
      const answer = 'a'.repeat(1024 * 1024);
      model.enqueue({ content: 'Outline.' }, { content: 'Note.' }, { content: answer });
      const kickoff = await api.post('/kickoff', { inputs: { topic: 'tides' } });
      const id = kickoff.body.kickoff_id as string;
      await api.waitForState(id, ['SUCCESS']);

      const statusText = await getText(`${crewd.url}/status/${id}`);
      const status = JSON.parse(statusText) as { result: string; tasks: { output: string }[] };
      expect(status.result).toBe(answer);
      expect(status.tasks[2]!.output).toBe(answer);
      // result and tasks[2].output; last_step and last_executed_task hold clipped copies.
      expect(Buffer.byteLength(statusText)).toBeLessThan(2 * answer.length + 32 * 1024);
      // Every event carries the answer at most once: a final step keeps it as its result, its thought clipped.
      const eventsText = await getText(`${crewd.url}/executions/${id}/events`);
      const data = eventsText.split('\n').filter((line) => line.startsWith('data:'));
      expect(data.some((line) => line.length > answer.length)).toBe(true);
      for (const line of data) expect(Buffer.byteLength(line)).toBeLessThan(answer.length + 32 * 1024);
    } finally {
      await crewd.close();
    }
  });
});
