import { defineConfig } from 'vitest/config';

// `npm run test:real`: end-to-end runs of every use against real The Events Calendar sites
// (README "Tests against real sites"). The files share two sites and reset them between
// describes, so they run one at a time.
export default defineConfig({
  test: {
    include: ['test/real/**/*.test.ts'],
    globalSetup: ['test/real/support/global-setup.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 300_000,
    reporters: ['default'],
  },
});
