import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Only hangs should reach these: a machine busy with other work runs the process tests many times slower.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores: more workers only add contention for the child processes some tests start.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
