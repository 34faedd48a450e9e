import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/**
 * `npm run test:unit`: the tests that need no PostgreSQL, browser, root or child process, for a quick loop while
 * working. `npm test` runs these and every other test.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      'src/**/*.test.ts',
      'test/{api,client,engine,flow,llm,service,webhooks}/**/*.test.ts',
      'test/store/sqlite-{store,write-batcher,log-sync}.test.ts',
      'test/tools/{crew-tools-source,mcp-http-targets}.test.ts',
      'test/tools/builtin/**/*.test.ts',
    ],
    // Starts child processes to hold SQLite's lock between processes.
    exclude: [...configDefaults.exclude, 'src/store/sqlite/process-locks.test.ts'],
    // Fast because the files of a worker share their modules instead of importing them anew (two thirds of the
    // time went to that); `npm test` still runs every file in a fresh process.
    pool: 'threads',
    poolOptions: { threads: { maxThreads: 2, minThreads: 1 } },
    isolate: false,
  },
});
