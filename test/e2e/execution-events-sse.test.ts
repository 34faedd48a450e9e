import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { apiClient, crewsDir, startCrewd, withServersSharingDatabase } from '../support/crewd.ts';
import { readEvents } from '../support/sse.ts';

let model: FakeOpenAIServer;
let crewd: RunningServer;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: () => ({ content: 'An answer.', delayMs: 50 }) });
  crewd = await startCrewd({ crewDir: join(crewsDir, 'plain-crew'), modelUrl: model.url });
});

afterAll(async () => {
  await crewd.close();
  await model.close();
});

describe('execution events', () => {
  it('streams events and resumes after Last-Event-ID without gaps or repeats', async () => {
    const api = apiClient(crewd.url);
    const kickoff = await api.post('/kickoff', { inputs: { topic: 'rivers' } });
    const url = `${crewd.url}/executions/${kickoff.body.kickoff_id}/events`;

    const head = await readEvents(url, {}, 3);
    expect(head.map((event) => event.id)).toEqual([1, 2, 3]);
    const tail = await readEvents(url, { 'last-event-id': '3' });
    const all = [...head, ...tail];
    expect(all.map((event) => event.id)).toEqual(all.map((_, index) => index + 1));
    expect(all[0]!.event).toBe('execution-start');
    expect(all.at(-1)!.event).toBe('execution-end');
    expect(all.at(-1)!.data).toMatchObject({ state: 'SUCCESS' });
    expect(all.filter((event) => event.event === 'task-end').map((event) => event.data.task_id)).toEqual([
      'outline',
      'note',
      'summary',
    ]);

    const replay = await readEvents(url, {});
    expect(replay).toEqual(all);
    // Reconnecting after the last event of a finished execution ends the stream at once, with nothing repeated.
    expect(await readEvents(url, { 'last-event-id': String(all.length) })).toEqual([]);
    expect(await readEvents(url, { 'last-event-id': '9999' })).toEqual([]);
  });

  it('follows changes another server sharing the database makes, and ends with them', async () => {
    const crewDir = join(crewsDir, 'sign-off-crew');
    await withServersSharingDatabase({ crewDir, modelUrl: model.url }, async (first, second) => {
      const firstApi = apiClient(first.url);
      const kickoff = await firstApi.post('/kickoff', { inputs: { document: 'the lease' } });
      const id = kickoff.body.kickoff_id as string;
      await firstApi.waitForState(id, ['PAUSED']);

      // Streamed by the first server, cancelled through the second once the stream has sent all there was: the
      // first learns of the cancel from the store alone, while following.
      let caughtUp = (): void => {};
      const followed = new Promise<void>((done) => (caughtUp = done));
      const streamed = readEvents(`${first.url}/executions/${id}/events`, {}, Infinity, (event) => {
        if (event.event === 'human-input-request') caughtUp();
      });
      await followed;
      const cancelled = await apiClient(second.url).post(`/cancel/${id}`, {});
      expect(cancelled.status).toBe(200);

      const events = await streamed;
      expect(events.map((event) => event.id)).toEqual(events.map((_, index) => index + 1));
      expect(events.at(-2)!.event).toBe('human-input-request');
      expect(events.at(-1)!.event).toBe('execution-end');
      expect(events.at(-1)!.data).toMatchObject({ state: 'REVOKED' });
    });
  });
});
