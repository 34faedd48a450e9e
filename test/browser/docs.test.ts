import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { collectPageErrors, launchChromium } from '../support/browser.ts';
import { crewsDir, startCrewd } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { numberedAnswers } from '../support/model-requests.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;
let crewd: RunningServer;
let browser: Browser;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: numberedAnswers() });
  crewd = await startCrewd({ crewDir: userCrew(join(crewsDir, 'review-crew')), modelUrl: model.url });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await crewd?.close();
  await model?.close();
});

describe('/docs in a browser', () => {
  it('renders every route under a strict Content-Security-Policy without a single violation', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    const violations: string[] = [];
    await page.exposeFunction('reportViolation', (directive: string) => violations.push(directive));
    // Runs in the page, before its own scripts.
    await page.addInitScript({
      content: `document.addEventListener('securitypolicyviolation', (event) =>
        window.reportViolation(event.violatedDirective + ' ' + event.blockedURI));`,
    });

    const response = await page.goto(`${crewd.url}/docs/`);
    await page.getByText('/kickoff', { exact: true }).first().waitFor();
    await page.getByText('/kickoff', { exact: true }).first().click();
    await page.getByText('Try it out').first().waitFor();

    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(response?.headers()['x-content-type-options']).toBe('nosniff');
    expect(response?.headers()['x-frame-options']).toBe('DENY');
    expect(await page.locator('.opblock').count()).toBeGreaterThan(10);
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('sends the same headers with the scripts and styles the page loads', async () => {
    for (const path of [
      '/docs',
      '/docs/static/swagger-ui-bundle.js',
      '/docs/static/swagger-initializer.js',
    ]) {
      const response = await fetch(`${crewd.url}${path}`, { redirect: 'manual' });
      expect(response.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
  });
});
