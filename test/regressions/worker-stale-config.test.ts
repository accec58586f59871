import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { redisUrl, testPrefix } from '../support/redis.ts';
import { spawnWorker, writeConfig } from '../support/worker-process.ts';

/**
 * Found adding a CSV source to the config of a running `calsync worker`: `enqueue import-csv --name
 * kurse --wait` (which read the new file and accepted the name) ended with `job failed: no CSV
 * source named "kurse" in the config` — the file plainly had it. The worker reads its config when
 * it starts; the message must say whose config it means and what to do.
 */
describe('regression: a source added to the config after the worker started was reported as "not in the config"', () => {
  it('the failed job says the worker read its config at start and must be restarted', { timeout: 60_000 }, async () => {
    const prefix = testPrefix();
    const site = { name: 'city', restRoot: 'http://127.0.0.1:9/wp-json' };
    const config = writeConfig({ sites: [site], sources: [] });
    const worker = spawnWorker({ config, redisUrl: redisUrl(), prefix });
    try {
      await new Promise((r) => setTimeout(r, 1500)); // the worker has read the file
      writeFileSync(config, JSON.stringify({ sites: [site], sources: [{ name: 'kurse', kind: 'csv', site: 'city', url: '/nonexistent/kurse.csv' }] }));
      const r = await runCli(['--config', config, '--redis', redisUrl(), '--prefix', prefix, 'enqueue', 'import-csv', '--name', 'kurse', '--wait'], {});
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/no CSV source named "kurse" in the worker's config/);
      expect(r.stderr).toMatch(/restart `calsync worker`/);
    } finally {
      await worker.kill('SIGTERM');
    }
  });
});
