import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PriceTable } from '../../src/llm/price-table.ts';
import type { RunningServer } from '../../src/main.ts';
import { launchChromium, signInToConsole, type ConsolePage } from '../support/browser.ts';
import { apiClient, startCrewd } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { userCrew } from '../support/user-crew.ts';

const researchFlow = join(import.meta.dirname, '..', 'e2e', 'flows', 'research-flow');
/** Every model call reports 1050 tokens: $1.05 at a dollar per thousand tokens. */
const callUsage = { prompt_tokens: 1000, completion_tokens: 50 };
const testPrices: PriceTable = { costUsd: (_model, tokens) => (tokens.input + tokens.output) / 1000 };

let model: FakeOpenAIServer;
let crewd: RunningServer;
let browser: Browser;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: () => ({ content: 'Tea came from China.', usage: callUsage }) });
  crewd = await startCrewd({ crewDir: userCrew(researchFlow), modelUrl: model.url, prices: testPrices });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await crewd?.close();
  await model?.close();
});

/** A flow execution paused on its budget of 2000 tokens, before the crew's second call (2100 spent). */
async function pausedOnBudget(): Promise<string> {
  const api = apiClient(crewd.url);
  const kickoff = await api.post('/kickoff', { inputs: { topic: 'tea' }, budget: { tokens: 2000 } });
  expect(kickoff.status).toBe(200);
  const paused = await api.waitForState(kickoff.body.kickoff_id, ['PAUSED', 'SUCCESS', 'FAILED']);
  expect(paused.body.pending_human_input).toMatchObject({ task_id: 'write_up', kind: 'budget' });
  return kickoff.body.kickoff_id as string;
}

function signIn(): Promise<ConsolePage> {
  return signInToConsole(browser, crewd.url);
}

const fact = (page: Page, name: string) => page.locator('dl.facts dt', { hasText: name }).locator('+ dd');

describe("the console's view of an execution's spend and budget", () => {
  it('shows the tokens and cost on the page, and a budget pause there that is stopped without a reason', async () => {
    const id = await pausedOnBudget();
    const { page, errors, close } = await signIn();
    try {
      await page.goto(`${crewd.url}/console/#/executions/${encodeURIComponent(id)}`);
      const review = page.getByRole('region', { name: 'Waiting for your review' });
      await review.getByRole('heading', { name: 'write_up budget reached' }).waitFor();
      await review.getByText("The execution's budget of 2000 tokens would be passed").waitFor();
      expect(await fact(page, 'Tokens').textContent()).toBe((2100).toLocaleString('en-US'));
      expect(await fact(page, 'Cost').textContent()).toBe('$2.1000');

      await review.getByRole('button', { name: 'Stop the execution' }).click();
      await page.getByText('Stopped: the budget was not extended.').waitFor();
      await page.getByRole('alert').getByText('The budget was not extended').waitFor();
      const ended = await apiClient(crewd.url).get(`/status/${id}`);
      expect(ended.body).toMatchObject({ state: 'REVOKED', error: 'The budget was not extended' });
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('lists a budget pause in the inbox, where extending the budget lets the flow finish', async () => {
    const id = await pausedOnBudget();
    const { page, errors, close } = await signIn();
    try {
      await page.getByRole('link', { name: 'Review inbox' }).click();
      const card = page
        .getByRole('article', { name: 'Review of write_up' })
        .filter({ hasText: '2100 tokens' });
      await card.getByRole('heading', { name: 'write_up budget reached' }).waitFor();
      await card.getByRole('button', { name: 'Extend the budget' }).click();
      await card.getByText('Budget extended; the execution goes on.').waitFor();

      const done = await apiClient(crewd.url).waitForState(id, ['SUCCESS', 'FAILED', 'PAUSED']);
      expect(done.body.state).toBe('SUCCESS');
      await page.goto(`${crewd.url}/console/#/executions/${encodeURIComponent(id)}`);
      await page.locator('.bar .badge', { hasText: 'Succeeded' }).waitFor();
      expect(await fact(page, 'Cost').textContent()).toBe('$3.1500');
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
