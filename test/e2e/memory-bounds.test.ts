import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPageBytes } from '../../src/service/crew-service.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { apiClient, crewsDir, startCrewd, testToken } from '../support/crewd.ts';

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
});
