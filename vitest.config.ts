import { defineConfig } from 'vitest/config';

// `npm test` (CI and the README) runs two projects:
// - unit: pure functions over in-memory data (parsers, zones, fetch guard, fuzz); no servers;
// - e2e: real HTTP against sandbox sites, a real redis-server and real worker processes.
// Test files start their own sandbox sites on port 0 and use a random queue prefix, so files run
// in parallel; the Redis server is one per run (test/support/global-setup.ts), e2e only.
// Long fault-injection runs live in vitest.chaos.config.ts, real-site runs in vitest.real.config.ts.
const UNIT = [
  'test/model/**/*.test.ts',
  'test/ics/**/*.test.ts',
  'test/csv/**/*.test.ts',
  'test/fetch/**/*.test.ts',
  'test/fuzz/**/*.test.ts',
  'test/export/units.test.ts',
  'test/export/golden.test.ts',
];

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT } },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts'],
          exclude: [...UNIT, 'test/chaos/**', 'test/real/**', 'node_modules/**'],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
    ],
  },
});
