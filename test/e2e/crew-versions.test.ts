import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { openStore } from '../../src/open-store.ts';
import { createTokenService } from '../../src/service/token-service.ts';
import { runCrewd } from '../cli/crewd-command.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { numberedAnswers, requestsMentioning } from '../support/model-requests.ts';
import { movableClock } from '../support/movable-clock.ts';
import { apiClient, crewsDir, startCrewd, tempDatabase } from '../support/crewd.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;
let crewd: RunningServer | undefined;
const clock = movableClock();
const database = tempDatabase();
const crewDir = userCrew(join(crewsDir, 'review-crew'));

const start = async (): Promise<ReturnType<typeof apiClient>> => {
  crewd = await startCrewd({
    crewDir,
    crews: [{ name: 'briefs', dir: crewDir }],
    modelUrl: model.url,
    database,
    clock: clock.now,
  });
  return apiClient(`${crewd.url}/crews/briefs`);
};

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: numberedAnswers() });
});

afterAll(async () => {
  await crewd?.close();
  await model.close();
});

async function paused(api: ReturnType<typeof apiClient>, product: string): Promise<string> {
  const kickoff = await api.post('/kickoff', { inputs: { product, audience: 'buyers' } });
  expect(kickoff.status).toBe(200);
  await api.waitForState(kickoff.body.kickoff_id, ['PAUSED']);
  return kickoff.body.kickoff_id as string;
}

async function approved(api: ReturnType<typeof apiClient>, id: string): Promise<void> {
  const resumed = await api.post('/resume', {
    execution_id: id,
    task_id: 'draft',
    human_feedback: 'Ok',
    is_approve: true,
  });
  expect(resumed.status).toBe(200);
  expect((await api.waitForState(id, ['SUCCESS', 'FAILED'])).body.state).toBe('SUCCESS');
}

const finalPrompts = (words: string): number => requestsMentioning(model, words).length;

describe('crew versions', () => {
  it('finishes a paused execution on the version it started on after the files changed', async () => {
    let api = await start();
    const before = await paused(api, 'kettles');
    await crewd!.close();
    crewd = undefined;

    const tasksFile = join(crewDir, 'tasks.yaml');
    writeFileSync(
      tasksFile,
      readFileSync(tasksFile, 'utf8').replace('Write the final brief about', 'Write the revised brief about'),
    );
    api = await start();
    const listed = await api.get('/versions');
    expect(listed.status).toBe(200);
    expect(listed.body.served).toBe(2);
    expect(
      listed.body.versions.map((entry: { version: number; served: boolean }) => [
        entry.version,
        entry.served,
      ]),
    ).toEqual([
      [1, false],
      [2, true],
    ]);

    await approved(api, before);
    expect(finalPrompts('Write the final brief about kettles')).toBe(1);
    expect(finalPrompts('revised brief about kettles')).toBe(0);

    const after = await paused(api, 'lamps');
    await approved(api, after);
    expect(finalPrompts('Write the revised brief about lamps')).toBe(1);
  });

  it('serves an earlier version to new kickoffs after a rollback, leaving the rest as it is', async () => {
    const api = apiClient(`${crewd!.url}/crews/briefs`);
    const onSecond = await paused(api, 'desks');

    const rollback = await runCrewd(['rollback', 'briefs', '1', '--database', database]);
    expect(rollback.code).toBe(0);
    expect(rollback.stdout).toBe('New kickoffs of briefs run on version 1\n');
    // A running server reads the version served again at most once a second: move its clock past that.
    clock.advance(1500);
    const onFirst = await paused(api, 'chairs');
    await approved(api, onFirst);
    await approved(api, onSecond);
    expect(finalPrompts('Write the final brief about chairs')).toBe(1);
    expect(finalPrompts('Write the revised brief about desks')).toBe(1);
    expect((await api.get('/versions')).body.served).toBe(1);

    const listed = await runCrewd(['versions', 'briefs', '--database', database]);
    expect(listed.stdout).toMatch(/^1\s+served\s+\S+\s+[0-9a-f]{12}$/m);
    const unknown = await runCrewd(['rollback', 'briefs', '9', '--database', database]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('crewd: The crew briefs has no version 9\n');
  });

  it('lists versions to organization tokens only', async () => {
    const store = await openStore(database);
    const { secret } = await createTokenService({ store, clock: () => new Date() })
      .create({ kind: 'user', userId: 'erin' })
      .finally(() => store.close());
    const asUser = await apiClient(`${crewd!.url}/crews/briefs`, secret).get('/versions');
    expect(asUser.status).toBe(404);
    expect(asUser.body.code).toBe('NOT_FOUND');
    expect(JSON.stringify(asUser.body)).not.toContain('hash');
  });

  it('keeps a rollback across a restart with the same files', async () => {
    await crewd!.close();
    const api = await start();
    expect((await api.get('/versions')).body.served).toBe(1);
  });
});
