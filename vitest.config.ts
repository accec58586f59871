import { defineConfig } from 'vitest/config';

// One config for `npm test` (CI and the README). Test files start their own sandbox sites on
// port 0 and use a random queue prefix, so files can run in parallel; the Redis server is one
// per run (test/support/global-setup.ts).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/real needs real sites: `npm run test:real` (vitest.real.config.ts).
    exclude: ['test/chaos/**', 'test/real/**', 'node_modules/**'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
