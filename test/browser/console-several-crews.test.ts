import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { createTokenService } from '../../src/service/token-service.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { launchChromium, signInToConsole, type ConsolePage } from '../support/browser.ts';
import { apiClient, crewsDir, startCrewd, tempDatabase, testToken } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { numberedAnswers } from '../support/model-requests.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;
let crewd: RunningServer;
let browser: Browser;
let notesOnlyToken: string;

beforeAll(async () => {
  const database = tempDatabase();
  model = await startFakeOpenAI({ respond: numberedAnswers() });
  const notes = userCrew(join(crewsDir, 'plain-crew'));
  const briefs = userCrew(join(crewsDir, 'review-crew'));
  crewd = await startCrewd({
    crewDir: notes,
    crews: [
      { name: 'notes', dir: notes },
      { name: 'briefs', dir: briefs },
    ],
    database,
    modelUrl: model.url,
  });
  const store = await openSqliteStore(database);
  notesOnlyToken = (
    await createTokenService({ store, clock: () => new Date() })
      .create({ kind: 'user', userId: 'dana', crews: ['notes'] })
      .finally(() => store.close())
  ).secret;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await crewd?.close();
  await model?.close();
});

function signIn(token: string): Promise<ConsolePage> {
  return signInToConsole(browser, crewd.url, token);
}

describe('the console of a server with several crews', () => {
  it("kicks off the crew picked, with that crew's own inputs and description", async () => {
    const { page, errors, close } = await signIn(testToken);
    try {
      await page.getByRole('link', { name: 'Kick off' }).click();
      await page.getByRole('heading', { name: 'Kick off plain-crew' }).waitFor();
      expect(await page.getByLabel('Crew', { exact: true }).inputValue()).toBe('notes');
      await page.getByLabel('topic').waitFor();

      await page.getByLabel('Crew', { exact: true }).selectOption('briefs');
      await page.getByRole('heading', { name: 'Kick off review-crew' }).waitFor();
      await page.getByText('sequential process: gather → draft (review) → publish').waitFor();
      expect(await page.getByLabel('topic').count()).toBe(0);
      await page.getByLabel('product').fill('lanterns');
      await page.getByLabel('audience').fill('campers');
      await page.getByRole('button', { name: 'Kick off' }).click();

      // The new execution's page, read at the root, which answers for every crew.
      await page.waitForURL(/#\/executions\/[^/]+$/);
      const id = decodeURIComponent(new URL(page.url()).hash.replace('#/executions/', ''));
      await page.getByRole('region', { name: 'Waiting for your review' }).waitFor();
      expect((await apiClient(`${crewd.url}/crews/briefs`).get(`/status/${id}`)).status).toBe(200);
      expect((await apiClient(crewd.url).get(`/executions/${id}`)).body.inputs).toEqual({
        product: 'lanterns',
        audience: 'campers',
      });
      expect((await apiClient(`${crewd.url}/crews/notes`).get(`/status/${id}`)).status).toBe(404);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it("makes a schedule for the crew picked, and lists each crew's own", async () => {
    const { page, errors, close } = await signIn(testToken);
    try {
      await page.goto(`${crewd.url}/console/#/schedules/notes`);
      await page.getByRole('heading', { name: 'Schedules' }).waitFor();
      expect(await page.getByLabel('Crew', { exact: true }).inputValue()).toBe('notes');
      await page.getByLabel('Name').fill('daily kites');
      await page.getByLabel('Cron expression').fill('0 8 * * *');
      await page.getByLabel('Time zone').fill('UTC');
      await page.getByLabel('topic').fill('kites');
      await page.getByRole('button', { name: 'Create schedule' }).click();
      await page.getByRole('rowheader', { name: 'daily kites' }).waitFor();

      const notes = (await apiClient(`${crewd.url}/crews/notes`).get('/schedules')).body.schedules;
      expect(notes.map((schedule: { name: string }) => schedule.name)).toEqual(['daily kites']);
      expect((await apiClient(`${crewd.url}/crews/briefs`).get('/schedules')).body.schedules).toEqual([]);

      await page.getByLabel('Crew', { exact: true }).selectOption('briefs');
      await page.getByLabel('product').waitFor();
      await page.getByText('No schedules yet.').waitFor();
      expect(await page.getByRole('rowheader', { name: 'daily kites' }).count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('offers a token limited to one crew that crew alone, without a picker', async () => {
    const { page, errors, close } = await signIn(notesOnlyToken);
    try {
      await page.goto(`${crewd.url}/console/#/kickoff/briefs`);
      // The crew named in the address is not the token's: its own crew is offered instead.
      await page.getByRole('heading', { name: 'Kick off plain-crew' }).waitFor();
      expect(await page.getByLabel('Crew', { exact: true }).count()).toBe(0);
      expect(await page.getByLabel('product').count()).toBe(0);
      await page.getByLabel('topic').waitFor();
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
