import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { testToken } from './crewd.ts';

/** Debian's Chromium; `.ci/run` installs it when it is missing. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless Chromium with nothing running in the background; each launch gets a fresh user-data directory. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** Messages the page logged as errors, Content-Security-Policy violations among them. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

export interface ConsolePage {
  readonly page: Page;
  /** What the page logged as errors so far. */
  readonly errors: string[];
  readonly close: () => Promise<void>;
}

/** A fresh browser context on the console of the server at `url`, signed in with `token` and showing its list. */
export async function signInToConsole(
  browser: Browser,
  url: string,
  token = testToken,
): Promise<ConsolePage> {
  const context = await browser.newContext({ viewport: { width: 1180, height: 820 } });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors = collectPageErrors(page);
  await page.goto(`${url}/console/`);
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Executions' }).waitFor();
  return { page, errors, close: () => context.close() };
}
