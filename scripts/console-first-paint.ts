/**
 * Measures the console's first paint of the execution list with 10,000 executions in the store:
 *
 *   npx tsx scripts/console-first-paint.ts [count]
 *
 * Seeds a fresh SQLite file with finished executions, serves the review crew from it, opens the console in
 * headless Chromium already signed in, and prints when the first row of the list was painted.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import { readServeConfig } from '../src/config.ts';
import { startServer } from '../src/main.ts';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import { launchChromium } from '../test/support/browser.ts';
import { crewsDir, tempDatabase, testToken } from '../test/support/crewd.ts';

const count = Number(process.argv[2] ?? 10_000);
const database = tempDatabase();
const store = await openSqliteStore(database);
await store.migrate();
const start = Date.now() - count * 1000;
for (let index = 0; index < count; index += 1) {
  const createdAt = new Date(start + index * 1000);
  const { execution } = await store.createExecution({
    id: randomUUID(),
    inputs: { product: `product ${index}`, audience: 'buyers' },
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

const env = { CREWD_ORG_TOKEN: testToken, CREWD_RATE_LIMIT: '0', OPENAI_API_KEY: 'unused' };
const config = readServeConfig(join(crewsDir, 'review-crew'), { port: '0', database }, env);
const server = await startServer(config, { env, logger: pino({ level: 'silent' }) });
const browser = await launchChromium();
try {
  for (let run = 1; run <= 3; run += 1) {
    const context = await browser.newContext();
    await context.addInitScript(`sessionStorage.setItem('crewd.token', ${JSON.stringify(testToken)})`);
    const page = await context.newPage();
    await page.goto(`${server.url}/console/`);
    await page.locator('tbody tr').first().waitFor();
    const paintedAt = await page.evaluate(
      'new Promise((resolve) => requestAnimationFrame(() => resolve(performance.now())))',
    );
    const rows = await page.locator('tbody tr').count();
    const timings = await page.evaluate<[string, number, number][]>(
      "performance.getEntries().map((entry) => [entry.name.replace(location.origin, ''), Math.round(entry.startTime), Math.round(entry.duration)])",
    );
    for (const [name, at, took] of timings) console.log(`  ${name}: at ${at} ms, took ${took} ms`);
    console.log(
      `run ${run}: ${count} executions, ${rows} rows painted ${Math.round(Number(paintedAt))} ms after navigation`,
    );
    await context.close();
  }
} finally {
  await browser.close();
  await server.close();
}
