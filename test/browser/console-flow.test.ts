import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { launchChromium, signInToConsole, type ConsolePage } from '../support/browser.ts';
import { apiClient, startCrewd } from '../support/crewd.ts';
import {
  startFakeOpenAI,
  type FakeOpenAIServer,
  type RecordedRequest,
} from '../support/fake-openai-server.ts';
import { userCrew } from '../support/user-crew.ts';

const reviewFlow = join(import.meta.dirname, '..', 'e2e', 'flows', 'review-flow');

let releaseHeldDraft: () => void = () => undefined;
/** A draft about "clocks" is held until the test lets it go, so the page can be read while the method runs. */
const heldDraft = new Promise<void>((resolve) => {
  releaseHeldDraft = resolve;
});

/** The draft names its topic; free-text feedback on the review is matched to needs_changes. */
function answer(request: RecordedRequest) {
  const text = JSON.stringify(request.body.messages);
  if (text.includes('determine which outcome best matches'))
    return { content: '{"outcome": "needs_changes"}' };
  const topic = /Draft one line about ([^.]+) for/.exec(text)?.[1] ?? 'something';
  return { content: `A draft about ${topic}.`, ...(topic === 'clocks' ? { heldUntil: heldDraft } : {}) };
}

let model: FakeOpenAIServer;
let crewd: RunningServer;
let browser: Browser;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: answer });
  crewd = await startCrewd({ crewDir: userCrew(reviewFlow), modelUrl: model.url });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  releaseHeldDraft();
  await browser?.close();
  await crewd?.close();
  await model?.close();
});

async function pausedFlow(topic: string): Promise<string> {
  const api = apiClient(crewd.url);
  const kickoff = await api.post('/kickoff', { inputs: { topic } });
  expect(kickoff.status).toBe(200);
  await api.waitForState(kickoff.body.kickoff_id, ['PAUSED']);
  return kickoff.body.kickoff_id as string;
}

function signIn(): Promise<ConsolePage> {
  return signInToConsole(browser, crewd.url);
}

const routeOf = (page: Page) => page.getByRole('list', { name: 'Route taken' });

describe("the console's view of a flow execution", () => {
  it('shows the methods run, the one waiting and the state; an outcome picked there resumes the flow', async () => {
    const id = await pausedFlow('kettles');
    const { page, errors, close } = await signIn();
    try {
      await page.goto(`${crewd.url}/console/#/executions/${encodeURIComponent(id)}`);
      await page.getByRole('heading', { name: 'Methods' }).waitFor();
      expect(await routeOf(page).getByRole('listitem').allTextContents()).toEqual([
        'draft done',
        'review waiting for review',
      ]);
      expect(await routeOf(page).locator('[aria-current="step"]').textContent()).toBe(
        'review waiting for review',
      );
      const state = page.locator('details', { has: page.getByText('Flow state') });
      await state.getByText('"kettles"').waitFor();
      await state.getByText('"engineers"').waitFor();
      // A flow has methods, not a crew's tasks.
      expect(await page.getByRole('heading', { name: 'Tasks' }).count()).toBe(0);

      const review = page.getByRole('region', { name: 'Waiting for your review' });
      await review.getByText('Publish this draft?').waitFor();
      await review.getByText('A draft about kettles.').waitFor();
      const outcomes = review.getByRole('group', { name: 'Outcomes' }).getByRole('button');
      expect(await outcomes.allTextContents()).toEqual(['approved', 'needs_changes']);
      await review.getByRole('button', { name: 'approved' }).click();

      await page.locator('.bar .badge', { hasText: 'Succeeded' }).waitFor();
      await routeOf(page).getByRole('listitem', { name: 'publish: done' }).waitFor();
      expect(await routeOf(page).getByRole('listitem').allTextContents()).toEqual([
        'draft done',
        'review done',
        'publish done',
      ]);
      const done = await apiClient(crewd.url).get(`/status/${id}`);
      expect(done.body).toMatchObject({
        state: 'SUCCESS',
        result: 'PUBLISHED: A draft about kettles.',
        flow_methods: ['draft', 'review', 'publish'],
      });
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it("answers a flow's review from the inbox with free text, which takes the branch it matches", async () => {
    const id = await pausedFlow('lamps');
    const { page, errors, close } = await signIn();
    try {
      await page.getByRole('link', { name: 'Review inbox' }).click();
      const card = page.getByRole('article', { name: 'Review of review' }).filter({ hasText: 'lamps' });
      await card.getByText('Publish this draft?').waitFor();
      expect(
        await card.getByRole('group', { name: 'Outcomes' }).getByRole('button').allTextContents(),
      ).toEqual(['approved', 'needs_changes']);
      await card.getByRole('button', { name: 'Send feedback' }).click();
      await card.getByRole('alert').getByText('Write your feedback before sending it').waitFor();
      await card.getByLabel('Feedback').fill('Name a brand');
      await card.getByRole('button', { name: 'Send feedback' }).click();
      await card.getByText('Sent your feedback').waitFor();

      const done = await apiClient(crewd.url).waitForState(id, ['SUCCESS', 'FAILED']);
      expect(done.body).toMatchObject({
        state: 'SUCCESS',
        result: 'SENT BACK: Name a brand',
        flow_methods: ['draft', 'review', 'send_back'],
      });
      await page.goto(`${crewd.url}/console/#/executions/${encodeURIComponent(id)}`);
      await page.locator('.bar .badge', { hasText: 'Succeeded' }).waitFor();
      expect(await routeOf(page).getByRole('listitem').allTextContents()).toEqual([
        'draft done',
        'review done',
        'send_back done',
      ]);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('shows the method running now, then the route as the flow moves on', async () => {
    const kickoff = await apiClient(crewd.url).post('/kickoff', { inputs: { topic: 'clocks' } });
    expect(kickoff.status).toBe(200);
    const id = kickoff.body.kickoff_id as string;
    const { page, errors, close } = await signIn();
    try {
      await page.goto(`${crewd.url}/console/#/executions/${encodeURIComponent(id)}`);
      await routeOf(page).getByRole('listitem', { name: 'draft: running' }).waitFor();
      expect(await routeOf(page).getByRole('listitem').allTextContents()).toEqual(['draft running']);
      releaseHeldDraft();
      await routeOf(page).getByRole('listitem', { name: 'review: waiting for review' }).waitFor();
      expect(await routeOf(page).getByRole('listitem').allTextContents()).toEqual([
        'draft done',
        'review waiting for review',
      ]);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it("kicks off a flow from the console's form, with its state's fields as inputs", async () => {
    const { page, errors, close } = await signIn();
    try {
      await page.getByRole('link', { name: 'Kick off' }).click();
      await page.getByLabel('topic').fill('vases');
      await page.getByLabel('audience').fill('potters');
      await page.getByRole('button', { name: 'Kick off' }).click();
      await page.waitForURL(/#\/executions\/[^/]+$/);
      const id = decodeURIComponent(new URL(page.url()).hash.replace('#/executions/', ''));
      await routeOf(page).getByRole('listitem', { name: 'review: waiting for review' }).waitFor();
      const status = await apiClient(crewd.url).get(`/status/${id}`);
      expect(status.body.flow_state).toMatchObject({ topic: 'vases', audience: 'potters' });
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('asks only for the required fields; a defaulted one left empty gives the state its default', async () => {
    const { page, errors, close } = await signIn();
    try {
      await page.getByRole('link', { name: 'Kick off' }).click();
      const topic = page.getByLabel('topic');
      const audience = page.getByLabel('audience');
      expect(await topic.getAttribute('required')).not.toBeNull();
      expect(await audience.getAttribute('required')).toBeNull();
      expect(await audience.getAttribute('placeholder')).toBe('engineers');
      expect(await page.locator('label[for="input-audience"]').textContent()).toBe('audience (optional)');
      expect(await page.locator('label[for="input-topic"]').textContent()).toBe('topic');

      // The required one still has to be filled in.
      await page.getByRole('button', { name: 'Kick off' }).click();
      await page.getByRole('alert').getByText('Fill in topic.').waitFor();

      await topic.fill('jugs');
      await page.getByRole('button', { name: 'Kick off' }).click();
      await page.waitForURL(/#\/executions\/[^/]+$/);
      const id = decodeURIComponent(new URL(page.url()).hash.replace('#/executions/', ''));
      await routeOf(page).getByRole('listitem', { name: 'review: waiting for review' }).waitFor();
      const status = await apiClient(crewd.url).get(`/status/${id}`);
      expect(status.body.state).toBe('PAUSED');
      expect(status.body.flow_state).toMatchObject({ topic: 'jugs', audience: 'engineers' });
      expect(status.body.pending_human_input.output).toBe('A draft about jugs.');
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
