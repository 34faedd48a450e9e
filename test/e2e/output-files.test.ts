import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { createTokenService } from '../../src/service/token-service.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { apiClient, startCrewd, tempDatabase } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { userText } from '../support/model-requests.ts';

const template = resolve(import.meta.dirname, '../fixtures/crewai-projects/latest_ai_development');
const report = '# Report\n\nLarge models, small models, and agents.';

let model: FakeOpenAIServer;
let crewd: RunningServer;
let database: string;
let aliceSecret: string;
let bobSecret: string;

beforeAll(async () => {
  model = await startFakeOpenAI({
    respond: (request) =>
      userText(request).includes('Conduct a thorough research')
        ? { content: '- Point one\n- Point two' }
        : { content: report },
  });
  database = tempDatabase();
  const store = await openSqliteStore(database);
  await store.migrate();
  const tokens = createTokenService({ store, clock: () => new Date() });
  aliceSecret = (await tokens.create({ kind: 'user', userId: 'alice' })).secret;
  bobSecret = (await tokens.create({ kind: 'user', userId: 'bob' })).secret;
  await store.close();
  // No --allow-partial: crewAI's own template runs as written, its output_file included.
  crewd = await startCrewd({
    crewDir: template,
    database,
    modelUrl: model.url,
    env: { MODEL: 'openai/gpt-4o-mini' },
  });
});

afterAll(async () => {
  await crewd.close();
  await model.close();
});

const inputs = { topic: 'AI LLMs', current_year: '2026' };

describe("a task's output_file", () => {
  it("is saved in the execution's workspace, listed on /status and downloadable with the same token", async () => {
    const alice = apiClient(crewd.url, aliceSecret);
    const kickoff = await alice.post('/kickoff', { inputs });
    const id = kickoff.body.kickoff_id as string;
    const done = await alice.waitForState(id, ['SUCCESS', 'FAILED']);

    expect(done.body.state).toBe('SUCCESS');
    const size = Buffer.byteLength(report);
    expect(done.body.output_files).toEqual([
      { task_id: 'reporting_task', path: 'report.md', size, url: `/executions/${id}/files/report.md` },
    ]);
    const onDisk = join(dirname(database), 'workspace', id, 'report.md');
    expect(readFileSync(onDisk, 'utf8')).toBe(report);

    const download = await fetch(`${crewd.url}/executions/${id}/files/report.md`, {
      headers: { authorization: `Bearer ${aliceSecret}` },
    });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await download.text()).toBe(report);
  });

  it("answers 404 to another user's token, to no token 401, and 404 for a file no task saved", async () => {
    const alice = apiClient(crewd.url, aliceSecret);
    const kickoff = await alice.post('/kickoff', { inputs });
    const id = kickoff.body.kickoff_id as string;
    await alice.waitForState(id, ['SUCCESS']);

    const bob = await apiClient(crewd.url, bobSecret).get(`/executions/${id}/files/report.md`);
    expect(bob.status).toBe(404);
    expect(bob.body).toMatchObject({ code: 'NOT_FOUND' });
    expect(JSON.stringify(bob.body)).not.toContain('Report');

    const anonymous = await apiClient(crewd.url, null).get(`/executions/${id}/files/report.md`);
    expect(anonymous.status).toBe(401);

    for (const path of ['../crewd.db', '..%2F..%2Fcrewd.db', 'other.md']) {
      const response = await alice.get(`/executions/${id}/files/${path}`);
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: 'NOT_FOUND' });
    }
  });
});
