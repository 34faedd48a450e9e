// Figure 9: how soon the console paints the first row of its execution list with 10,000 executions in the store,
// in headless Chromium signed in already, a fresh browser context per round. Baseline: the paint of the server's
// plain `GET /` page in the same browser, in alternating rounds, so the machine's load shows on both.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { launchChromium } from '../../test/support/browser.ts';
import { crewDirs } from '../lib/crew-dirs.ts';
import { benchToken, startCrewdServer } from '../lib/crewd-server.ts';
import { runFigure } from '../lib/figure-main.ts';
import { median, spread } from '../lib/stats.ts';

const figure = '9 console first paint';
const metric = 'first list row painted after navigation';
const target = '<= 1000 ms';
const executions = 10_000;

/** Finished executions, one a second up to now, as a busy server would have them. */
async function seed(database: string, count: number): Promise<void> {
  const store = await openSqliteStore(database);
  await store.migrate();
  const start = Date.now() - count * 1000;
  for (let index = 0; index < count; index += 1) {
    const createdAt = new Date(start + index * 1000);
    const { execution } = await store.createExecution({
      id: randomUUID(),
      inputs: { topic: `topic ${index}` },
      meta: null,
      webhooks: { taskUrl: null, stepUrl: null, crewUrl: null, humanInput: null },
      owner: { tokenId: 'seed', userId: null },
      idempotencyKey: null,
      requestHash: null,
      createdAt,
    });
    await store.applyChange({
      executionId: execution.id,
      fromStates: ['PENDING'],
      state: index % 3 === 0 ? 'FAILED' : 'REVOKED',
      patch: { error: index % 3 === 0 ? 'The model did not answer' : null },
      now: createdAt,
    });
  }
  await store.close();
}

/** Where the page's time went, in ms after navigation: the page's HTML, its script, the list request. */
interface Paint {
  readonly paintedMs: number;
  readonly htmlMs: number;
  readonly scriptStartMs: number;
  readonly scriptMs: number;
  readonly listStartMs: number;
  readonly listEndMs: number;
}

const timingsScript = `(() => {
  const entries = performance.getEntriesByType('resource');
  const find = (part) => entries.find((entry) => entry.name.includes(part));
  const navigation = performance.getEntriesByType('navigation')[0];
  return {
    htmlMs: navigation.responseEnd,
    scriptStartMs: find('.js')?.startTime ?? 0,
    scriptMs: find('.js')?.responseEnd ?? 0,
    listStartMs: find('/executions')?.startTime ?? 0,
    listEndMs: find('/executions')?.responseEnd ?? 0,
  };
})()`;
/**
 * Runs in the page before its own scripts: notes the frame after the first element matching `selector` appeared,
 * measured in the page itself, so the benchmark's remote control adds nothing to it.
 */
function paintWatcher(selector: string): string {
  return `(() => {
    const seen = () => {
      if (document.querySelector(${JSON.stringify(selector)}) === null) return false;
      requestAnimationFrame(() => {
        document.documentElement.dataset.benchPainted = String(performance.now());
      });
      return true;
    };
    const observer = new MutationObserver(() => { if (seen()) observer.disconnect(); });
    observer.observe(document, { childList: true, subtree: true });
  })()`;
}

/** When the watcher saw the paint; read through the DOM, since the page's policy refuses evaluated strings. */
async function paintedAt(page: Page): Promise<number> {
  const root = page.locator('html[data-bench-painted]');
  await root.waitFor({ state: 'attached' });
  return Number(await root.getAttribute('data-bench-painted'));
}

async function consolePaint(browser: Browser, url: string): Promise<Paint> {
  const context = await browser.newContext();
  try {
    await context.addInitScript(`sessionStorage.setItem('crewd.token', ${JSON.stringify(benchToken)})`);
    await context.addInitScript(paintWatcher('tbody tr'));
    const page = await context.newPage();
    await page.goto(`${url}/console/`);
    const paintedMs = await paintedAt(page);
    const timings = await page.evaluate<Omit<Paint, 'paintedMs'>>(timingsScript);
    return { paintedMs, ...timings };
  } finally {
    await context.close();
  }
}

async function plainPaint(browser: Browser, url: string): Promise<number> {
  const context = await browser.newContext();
  try {
    await context.addInitScript(paintWatcher('pre'));
    const page = await context.newPage();
    await page.goto(`${url}/`);
    return await paintedAt(page);
  } finally {
    await context.close();
  }
}

runFigure({ figure, metric, target }, async ({ quick }) => {
  const folder = mkdtempSync(join(tmpdir(), 'crewd-bench-console-'));
  const database = join(folder, 'crewd.db');
  await seed(database, executions);
  // The list never asks the model anything; the address only has to be well formed.
  const server = await startCrewdServer({
    crewDir: crewDirs.threeTask,
    modelUrl: 'http://127.0.0.1:9/v1',
    database,
  });
  const browser = await launchChromium();
  const loadBefore = loadavg()[0]!;
  try {
    // One of each first: Chromium's own start-up is not the console's.
    await consolePaint(browser, server.url);
    await plainPaint(browser, server.url);
    const rounds = quick ? 3 : 11;
    const paints: Paint[] = [];
    const plain: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      if (round % 2 === 0) {
        paints.push(await consolePaint(browser, server.url));
        plain.push(await plainPaint(browser, server.url));
      } else {
        plain.push(await plainPaint(browser, server.url));
        paints.push(await consolePaint(browser, server.url));
      }
    }
    const painted = spread(paints.map((paint) => paint.paintedMs));
    const at = (pick: (paint: Paint) => number): string => median(paints.map(pick)).toFixed(0);
    const baseline = median(plain);
    return [
      {
        figure,
        metric,
        unit: 'ms',
        value: painted.median,
        range: painted,
        baseline,
        baselineLabel: "the server's plain GET / page, painted in the same browser",
        ratio: painted.median / baseline,
        target,
        met: painted.median <= 1000,
        note:
          `${executions.toLocaleString('en')} executions; medians after navigation: HTML ${at((paint) => paint.htmlMs)} ms, ` +
          `script ${at((paint) => paint.scriptStartMs)}..${at((paint) => paint.scriptMs)} ms, list request ${at((paint) => paint.listStartMs)}..` +
          `${at((paint) => paint.listEndMs)} ms; load average ${loadBefore.toFixed(1)} before, ` +
          `${loadavg()[0]!.toFixed(1)} after`,
      },
    ];
  } finally {
    await browser.close();
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});
