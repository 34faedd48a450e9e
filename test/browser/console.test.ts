import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { createTokenService } from '../../src/service/token-service.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { collectPageErrors, launchChromium, signInToConsole, type ConsolePage } from '../support/browser.ts';
import { apiClient, crewsDir, startCrewd, tempDatabase, testToken } from '../support/crewd.ts';
import { userText } from '../support/model-requests.ts';
import { startFakeOpenAI } from '../support/fake-openai-server.ts';
import { startScriptedReceiver } from '../support/scripted-receiver.ts';
import type { ScriptedReceiver } from '../support/scripted-receiver.ts';
import type { FakeOpenAIServer, FakeResponder, RecordedRequest } from '../support/fake-openai-server.ts';
import { until } from '../support/until.ts';
import { userCrew } from '../support/user-crew.ts';

/** Set to a directory to save the README's screenshots of the console while the tests run. */
const screenshotDir = process.env.CREWD_CONSOLE_SCREENSHOTS;

let model: FakeOpenAIServer;
let crewd: RunningServer;
let store: Store;
let browser: Browser;
let receiver: ScriptedReceiver;
let aliceToken: string;
const api = () => apiClient(crewd.url);

/** Model calls for a product named `held-…` wait until the test releases them (or for ever). */
const holds = new Map<string, { promise: Promise<void>; release: () => void }>();
function hold(product: string): () => void {
  let release = (): void => undefined;
  const promise = new Promise<void>((resolve) => (release = resolve));
  holds.set(product, { promise, release });
  return release;
}

function answer(request: RecordedRequest) {
  const text = JSON.stringify(request.body);
  const product = /about (held-[a-z0-9-]+|[a-z]+)/.exec(text)?.[1] ?? 'things';
  const held = holds.get(product)?.promise;
  const attempt = (text.match(/human_feedback/g) ?? []).length > 0 ? ' (revised, with the warranty)' : '';
  const content = text.includes('List three facts')
    ? `## Facts about ${product}\n\n- They last **ten years**.\n- They come in <b>three</b> sizes.\n- Repairs are cheap.`
    : text.includes('Draft a one-paragraph brief')
      ? `A short brief: ${product} are *sturdy* and easy to repair${attempt}.`
      : `# Final brief on ${product}\n\nBuy them for their \`long life\`.`;
  if (product === 'broken') return { status: 400, errorMessage: 'provider secret detail' };
  return { content, ...(held === undefined ? {} : { heldUntil: held }) };
}

beforeAll(async () => {
  const database = tempDatabase();
  model = await startFakeOpenAI({ respond: answer });
  crewd = await startCrewd({ crewDir: join(crewsDir, 'review-crew'), database, modelUrl: model.url });
  store = await openSqliteStore(database);
  aliceToken = (
    await createTokenService({ store, clock: () => new Date() }).create({ kind: 'user', userId: 'alice' })
  ).secret;
  receiver = await startScriptedReceiver();
  browser = await launchChromium();
  if (screenshotDir !== undefined) mkdirSync(screenshotDir, { recursive: true });
}, 60_000);

afterAll(async () => {
  for (const { release } of holds.values()) release();
  await browser?.close();
  await crewd?.close();
  await store?.close();
  await model?.close();
  await receiver?.close();
});

function openConsole(token: string = testToken, url: string = crewd.url): Promise<ConsolePage> {
  return signInToConsole(browser, url, token);
}

async function pausedExecution(product: string, token: string = testToken): Promise<string> {
  const client = apiClient(crewd.url, token);
  const kickoff = await client.post('/kickoff', { inputs: { product, audience: 'buyers' } });
  expect(kickoff.status).toBe(200);
  await api().waitForState(kickoff.body.kickoff_id, ['PAUSED']);
  return kickoff.body.kickoff_id as string;
}

async function shoot(page: Page, name: string): Promise<void> {
  if (screenshotDir !== undefined) await page.screenshot({ path: join(screenshotDir, name), fullPage: true });
}

interface OwnCrewd {
  readonly model: FakeOpenAIServer;
  readonly url: string;
  readonly page: Page;
  readonly errors: string[];
  /** Kicks off with `inputs` and opens the new execution's page; answers its id. */
  readonly openExecution: (inputs: Record<string, string>) => Promise<string>;
}

/** Runs `use` with a crewd of its own for `crewDir`, its own fake model and a console signed in to it. */
async function withOwnCrewd(
  crewDir: string,
  setup: { respond?: FakeResponder; env?: Record<string, string> },
  use: (own: OwnCrewd) => Promise<void>,
): Promise<void> {
  const model = await startFakeOpenAI({ respond: setup.respond });
  const own = await startCrewd({ crewDir, modelUrl: model.url, env: setup.env });
  const { close, page, errors } = await openConsole(testToken, own.url);
  const openExecution = async (inputs: Record<string, string>) => {
    const kickoff = await apiClient(own.url).post('/kickoff', { inputs });
    const id = kickoff.body.kickoff_id as string;
    await page.goto(`${own.url}/console/#/executions/${id}`);
    return id;
  };
  try {
    await use({ model, url: own.url, page, errors, openExecution });
  } finally {
    await close();
    await own.close();
    await model.close();
  }
}

describe('the web console in a browser', { timeout: 90_000 }, () => {
  it('refuses a wrong token, then signs in with the token kept out of the address', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    await page.goto(`${crewd.url}/console/`);
    await page.getByLabel('Token').fill('not-a-real-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('That token was not accepted').waitFor();

    await page.getByLabel('Token').fill(testToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Executions' }).waitFor();
    expect(page.url()).not.toContain(testToken);
    expect(await page.evaluate("sessionStorage.getItem('crewd.token')")).toBe(testToken);
    expect(await page.evaluate('localStorage.length + document.cookie.length')).toBe(0);
    // The 401 of the wrong token is the only error; the Content-Security-Policy refused nothing.
    expect(errors.filter((error) => !error.includes('401'))).toEqual([]);
    await context.close();
  });

  it('kicks off from the form, shows tasks and steps as they happen, then takes a rejection and an approval', async () => {
    const release = hold('held-kettles');
    const { close, page, errors } = await openConsole();
    await page.getByRole('link', { name: 'Kick off' }).click();
    await page.getByLabel('product').fill('held-kettles');
    await page.getByLabel('audience').fill('cafes');
    await page.getByText('Meta and webhooks (optional)').click();
    await page.getByLabel('Meta (JSON object)').fill('{"ticket": 42}');
    await page.getByLabel('Task webhook URL').fill(`${receiver.url}/tasks`);
    await page.getByRole('button', { name: 'Kick off' }).click();

    // The first task has started and its model call is still held: the page shows it live, without output yet.
    const gather = page.getByRole('listitem', { name: 'Task gather' });
    await gather.getByRole('cell', { name: 'Market analyst for held-kettles' }).waitFor();
    expect(await gather.getByText('Final answer given.').count()).toBe(0);
    release();
    await gather.getByText('Final answer given.').waitFor();
    // The output is Markdown, rendered; the HTML inside it stays text.
    await page.getByRole('heading', { name: 'Facts about held-kettles' }).waitFor();
    expect(await gather.locator('strong', { hasText: 'ten years' }).count()).toBe(1);
    expect(await gather.locator('b').count()).toBe(0);
    await gather.getByText('They come in <b>three</b> sizes.').waitFor();

    const review = page.getByRole('region', { name: 'Waiting for your review' });
    await review.getByText('attempt 1').waitFor();
    await shoot(page, 'console-execution.png');
    await review.getByLabel('Feedback').fill('Mention the warranty.');
    await review.getByRole('button', { name: 'Reject with feedback' }).click();

    // The task runs again and asks for review again, showing the earlier feedback.
    await review.getByText('attempt 2').waitFor();
    await review.getByText('Mention the warranty.').waitFor();
    await review.getByText('revised, with the warranty').waitFor();
    await review.getByRole('button', { name: 'Approve' }).click();

    const result = page.getByRole('region', { name: 'Result' });
    await result.getByRole('heading', { name: 'Final brief on held-kettles' }).waitFor();
    expect(await page.locator('.bar .badge').textContent()).toBe('Succeeded');
    // Every task webhook message is listed with its delivery attempts; the kickoff's meta is shown.
    await page
      .getByRole('cell', { name: `${receiver.url}/tasks` })
      .first()
      .waitFor();
    await page.getByText('Inputs and meta').click();
    await page.getByText('ticket:').waitFor();
    const draftRows = page.getByRole('listitem', { name: 'Task draft' }).locator('tbody tr');
    expect(await draftRows.count()).toBe(2);
    expect(errors).toEqual([]);
    await close();
  });

  it('runs the offline example crew with a topic of its own: approved with feedback, it succeeds with a labelled stand-in', async () => {
    const exampleCrew = userCrew(resolve(import.meta.dirname, '../../examples/research-crew'));
    await withOwnCrewd(exampleCrew, {}, async ({ model: unused, url, page, errors }) => {
      await page.getByRole('link', { name: 'Kick off' }).click();
      await page.getByLabel('topic').fill('Tide pools of Brittany — laisses de mer 🦀');
      await page.getByLabel('current_year').fill('2026');
      await page.getByRole('button', { name: 'Kick off' }).click();

      const review = page.getByRole('region', { name: 'Waiting for your review' });
      await review.getByText('attempt 1').waitFor();
      await review.getByText('Offline stand-in answer: no model wrote this.').first().waitFor();
      await review.getByLabel('Feedback').fill('ok, go ahead');
      await review.getByRole('button', { name: 'Approve' }).click();

      const result = page.getByRole('region', { name: 'Result' });
      await result
        .getByText(/Asked for: Write the report on Tide pools of Brittany — laisses de mer 🦀/)
        .waitFor();
      await result.getByText(/^Offline stand-in answer: no model wrote this\./).waitFor();
      await page.locator('.bar .badge', { hasText: 'Succeeded' }).waitFor();
      const id = /#\/executions\/([^/?]+)/.exec(page.url())![1]!;
      const execution = await apiClient(url).get(`/executions/${id}`);
      expect(execution.body.state).toBe('SUCCESS');
      expect(execution.body.feedback).toMatchObject([{ task_id: 'outline_task', approved: true }]);
      expect(JSON.stringify(execution.body.feedback)).toContain('ok, go ahead');
      // The offline model answered everything; no model server was asked.
      expect(unused.requests).toEqual([]);
      expect(errors).toEqual([]);
    });
  });

  it("shows an agent's tool call as a step as it happens, with the tool's input and result", async () => {
    // The crew's TypeScript tool appends to VISIT_LOG: a temporary file, never one in the work tree.
    process.env.VISIT_LOG = join(mkdtempSync(join(tmpdir(), 'crewd-visits-')), 'visits.log');
    await withOwnCrewd(
      userCrew(join(crewsDir, 'tool-crew')),
      {},
      async ({ model: toolModel, page, errors, openExecution }) => {
        let release = (): void => undefined;
        try {
          const finalAnswer = new Promise<void>((resolve) => (release = resolve));
          toolModel.enqueue(
            { content: 'Recording it.', toolCalls: [{ name: 'record_visit', arguments: { city: 'Lyon' } }] },
            { content: 'The visit to Lyon is recorded.', heldUntil: finalAnswer },
          );
          await openExecution({ city: 'Lyon' });

          // The tool has run and the final answer is still held: the step is on the page while the task runs.
          const visit = page.getByRole('listitem', { name: 'Task visit' });
          const step = visit.getByRole('listitem').filter({ hasText: 'Tool call: record_visit' });
          await step.getByText('Recording it.').waitFor();
          await step.getByText('Tool call: record_visit').click();
          await step.getByText('Visit to Lyon recorded.').waitFor();
          await step.getByText('"Lyon"').waitFor();
          expect(await step.locator('.json-key', { hasText: 'city' }).count()).toBe(1);
          expect(await visit.getByText('Final answer given.').count()).toBe(0);

          release();
          await visit.getByText('Final answer given.').waitFor();
          await visit.getByText('The visit to Lyon is recorded.').first().waitFor();
          expect(errors).toEqual([]);
        } finally {
          release();
        }
      },
    );
  });

  it("lists the files an execution's tasks saved and downloads one with the token kept out of the link", async () => {
    const report = '# Report\n\nLarge models, small models, and agents.';
    const template = resolve(import.meta.dirname, '../fixtures/crewai-projects/latest_ai_development');
    const respond: FakeResponder = (request) =>
      userText(request).includes('Conduct a thorough research')
        ? { content: '- Point one\n- Point two' }
        : { content: report };
    await withOwnCrewd(template, { respond, env: { MODEL: 'openai/gpt-4o-mini' } }, async (own) => {
      const id = await own.openExecution({ topic: 'AI LLMs', current_year: '2026' });
      await apiClient(own.url).waitForState(id, ['SUCCESS']);

      const listed = own.page
        .getByRole('region', { name: 'Output files' })
        .getByRole('row', { name: /report\.md/ });
      await listed.getByRole('cell', { name: 'reporting_task' }).waitFor();
      expect(await listed.getByRole('cell', { name: `${Buffer.byteLength(report)} B` }).count()).toBe(1);
      const [download] = await Promise.all([
        own.page.waitForEvent('download'),
        listed.getByRole('button', { name: 'Download report.md' }).click(),
      ]);
      expect(download.suggestedFilename()).toBe('report.md');
      expect(download.url()).toMatch(/^blob:/);
      expect(readFileSync(await download.path(), 'utf8')).toBe(report);
      expect(own.errors).toEqual([]);
    });
  });

  it("marks a manager's delegation and shows the coworker's steps under the coworker's name", async () => {
    // The coworker's tool appends to STOP_LOG: a temporary file, never one in the work tree.
    process.env.STOP_LOG = join(mkdtempSync(join(tmpdir(), 'crewd-stops-')), 'stops.log');
    const toolResult = (request: RecordedRequest): string | undefined => {
      const messages = request.body.messages as { role: string; content: unknown }[];
      const content = messages.find((message) => message.role === 'tool')?.content;
      return typeof content === 'string' ? content : undefined;
    };
    const delegate = {
      name: 'Delegate_work_to_coworker',
      arguments: { task: 'Visit Porto and log it', context: 'A day trip', coworker: 'Traveller' },
    };
    const respond: FakeResponder = (request) => {
      const result = toolResult(request);
      if (request.body.model === 'manager-model') {
        return result === undefined
          ? { content: 'The traveller should do this.', toolCalls: [delegate] }
          : { content: `Manager: ${result}` };
      }
      return result === undefined
        ? { toolCalls: [{ name: 'log_stop', arguments: { city: 'Porto' } }] }
        : { content: 'Porto is logged.' };
    };
    await withOwnCrewd(
      userCrew(join(crewsDir, 'managed-crew')),
      { respond },
      async ({ page, errors, openExecution }) => {
        await openExecution({ city: 'Porto' });

        const trip = page.getByRole('listitem', { name: 'Task trip' });
        await trip.getByText('Manager: Porto is logged.').first().waitFor();
        const steps = trip.getByRole('list', { name: 'Steps' }).locator(':scope > li');
        await until(async () => (await steps.count()) === 4);
        expect(await steps.locator('.step-agent').allTextContents()).toEqual([
          'Traveller',
          'Traveller',
          'Crew Manager',
          'Crew Manager',
        ]);
        await steps.nth(0).getByText('Tool call: log_stop').waitFor();
        const delegation = steps.nth(2);
        expect(await delegation.getAttribute('class')).toContain('delegation');
        await delegation.getByText('Delegated work to Traveller').click();
        await delegation.getByText('"Visit Porto and log it"').waitFor();
        await delegation.getByText('Porto is logged.').waitFor();
        expect(await trip.locator('.delegation').count()).toBe(1);
        expect(errors).toEqual([]);
      },
    );
  });

  it('lists executions newest first and filters them by state', async () => {
    const paused = await pausedExecution('lamps');
    const { close, page } = await openConsole();
    const row = page.locator(`tr[data-id="${paused}"]`);
    await row.getByText('Waiting for review').waitFor();
    expect(await row.getByRole('cell', { name: 'draft' }).count()).toBe(1);
    expect(await row.getByText('1/3').count()).toBe(1);
    await shoot(page, 'console-executions.png');

    await page.getByLabel('State').selectOption('REVOKED');
    await row.waitFor({ state: 'detached' });
    expect(await page.getByText('Waiting for review').count()).toBe(0);
    await page.getByLabel('State').selectOption('PAUSED');
    await row.waitFor();
    await close();
  });

  it('approves from the review inbox; a second reviewer answering the same review is told another won', async () => {
    const id = await pausedExecution('chairs');
    const first = await openConsole();
    const second = await openConsole();
    // The second reviewer's page does not refresh on its own during the test: it answers what it showed.
    await second.page.clock.install();
    for (const { page } of [first, second]) {
      await page.getByRole('link', { name: 'Review inbox' }).click();
    }
    const cardOf = (page: Page) =>
      page.getByRole('article', { name: 'Review of draft' }).filter({ hasText: 'chairs' });
    await cardOf(first.page).waitFor();
    await cardOf(second.page).waitFor();
    await shoot(first.page, 'console-inbox.png');

    await cardOf(first.page).getByRole('button', { name: 'Approve' }).click();
    await cardOf(first.page).getByText('Approved.').waitFor();
    await cardOf(second.page).getByLabel('Feedback').fill('Shorter.');
    await cardOf(second.page).getByRole('button', { name: 'Reject with feedback' }).click();
    await cardOf(second.page).getByText('Another reviewer answered this review first').waitFor();

    const done = await api().waitForState(id, ['SUCCESS', 'FAILED']);
    expect(done.body.state).toBe('SUCCESS');
    const status = await api().get(`/status/${id}`);
    expect(status.body.tasks.map((task: { task_id: string }) => task.task_id)).toEqual([
      'gather',
      'draft',
      'publish',
    ]);
    await first.close();
    await second.close();
  });

  it('updates the inbox when a review is answered elsewhere', async () => {
    const id = await pausedExecution('stools');
    const { close, page } = await openConsole();
    await page.getByRole('link', { name: 'Review inbox' }).click();
    await page.getByRole('article', { name: 'Review of draft' }).filter({ hasText: 'stools' }).waitFor();

    const resumed = await api().post('/resume', {
      execution_id: id,
      task_id: 'draft',
      human_feedback: '',
      is_approve: true,
    });
    expect(resumed.status).toBe(200);
    await page.getByText('draft, attempt 1: another reviewer answered this review.').waitFor();
    await close();
  });

  it('cancels a running execution', async () => {
    hold('held-desks');
    const kickoff = await api().post('/kickoff', { inputs: { product: 'held-desks', audience: 'offices' } });
    const id = kickoff.body.kickoff_id as string;
    const { close, page } = await openConsole();
    await page.goto(`${crewd.url}/console/#/executions/${id}`);
    await page.getByRole('cell', { name: 'Market analyst for held-desks' }).waitFor();
    await page.getByRole('button', { name: 'Cancel execution' }).click();

    await page.locator('.bar .badge', { hasText: 'Cancelled' }).waitFor();
    expect(await page.getByRole('button', { name: 'Cancel execution' }).count()).toBe(0);
    expect((await api().get(`/status/${id}`)).body.state).toBe('REVOKED');
    await close();
  });

  it('makes a schedule, pauses it and runs it now, showing the execution it started', async () => {
    const { close, page, errors } = await openConsole();
    await page.getByRole('link', { name: 'Schedules' }).click();
    await page.getByRole('heading', { name: 'Schedules' }).waitFor();
    await page.getByLabel('Name').fill('weekly chairs');
    await page.getByLabel('Cron expression').fill('0 7 * * 1');
    await page.getByLabel('Time zone').fill('Europe/Berlin');
    await page.getByLabel('product').fill('chairs');
    await page.getByLabel('audience').fill('schools');
    await page.getByRole('button', { name: 'Create schedule' }).click();
    await page.getByRole('rowheader', { name: 'weekly chairs' }).waitFor();
    const [schedule] = (await api().get('/schedules')).body.schedules as { id: string; timezone: string }[];
    expect(schedule).toMatchObject({
      timezone: 'Europe/Berlin',
      inputs: { product: 'chairs', audience: 'schools' },
    });

    await page.getByRole('button', { name: 'Pause weekly chairs' }).click();
    await page.getByRole('button', { name: 'Resume weekly chairs' }).waitFor();
    expect((await api().get(`/schedules/${schedule!.id}`)).body.paused).toBe(true);

    await page.getByRole('button', { name: 'Run weekly chairs now' }).click();
    await page.getByRole('cell', { name: 'Market analyst for chairs' }).waitFor();
    const started = /#\/executions\/([^/]+)$/.exec(page.url())?.[1];
    expect((await api().get(`/status/${started!}`)).body.meta.schedule).toMatchObject({
      id: schedule!.id,
      run_now: true,
    });

    await page.getByRole('link', { name: 'Schedules' }).click();
    await page.getByRole('button', { name: 'Delete weekly chairs' }).click();
    await page.getByText('No schedules yet.').waitFor();
    expect(errors).toEqual([]);
    await close();
  });

  it('says in plain words why an execution failed', async () => {
    const kickoff = await api().post('/kickoff', { inputs: { product: 'broken', audience: 'nobody' } });
    const id = kickoff.body.kickoff_id as string;
    await api().waitForState(id, ['FAILED']);
    const { close, page } = await openConsole();
    await page.goto(`${crewd.url}/console/#/executions/${id}`);

    const problem = page.getByRole('alert').filter({ hasText: 'What went wrong' });
    await problem.waitFor();
    expect(await problem.textContent()).toContain('gather');
    expect(await page.getByText('provider secret detail').count()).toBe(0);
    expect(await page.locator('.bar .badge').textContent()).toBe('Failed');
    await close();
  });

  it("shows a user only their own executions and not another user's page", async () => {
    const organizations = await pausedExecution('benches');
    const alices = await pausedExecution('shelves', aliceToken);
    const { close, page } = await openConsole(aliceToken);
    await page.locator(`tr[data-id="${alices}"]`).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(1);

    await page.goto(`${crewd.url}/console/#/executions/${organizations}`);
    await page.getByRole('heading', { name: 'Execution not found' }).waitFor();
    expect(await page.getByText('benches').count()).toBe(0);
    await close();
  });
});
