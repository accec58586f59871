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
  'test/cli/lazy-commands.test.ts',
];

export default defineConfig({
  test: {
    pool: 'forks',
    // Most e2e files wait on sockets, child processes and Redis rather than compute, so on a 2-core
    // machine vitest's default of one worker per core minus one (= 1) leaves the CPU idle half the run.
    maxWorkers: 3,
    // Files share one module graph per worker process: re-importing bullmq, undici, zod, the parsers
    // and the zone tables for each of ~110 files cost about a quarter of the suite's CPU time.
    // Sound because calsync keeps no module state beyond caches of pure functions, every file starts
    // its own sandbox sites (port 0) and Redis prefix, and the few spies and fake clocks are restored.
    isolate: false,
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
