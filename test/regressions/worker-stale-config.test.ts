import { writeFileSync } from 'node:fs';
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { bullConnection } from '../../src/queue/connection.ts';
import { RunHistory } from '../../src/queue/history.ts';
import { runCli } from '../support/cli.ts';
import { redisUrl, testPrefix, testRedis } from '../support/redis.ts';
import { spawnWorker, waitFor, writeConfig } from '../support/worker-process.ts';

/**
 * Found adding a CSV source to the config of a running `calsync worker`: `enqueue import-csv --name
 * kurse --wait` (which read the new file and accepted the name) ended with `job failed: no CSV
 * source named "kurse" in the config` — the file plainly had it. The worker reads its config when
 * it starts; the message must say whose config it means and what to do. And since a retry meets the
 * same config, the job was tried 3 times (15 s) and counted as a failed run of the source, toward
 * pausing it, although the worker never ran it.
 */
describe('regression: a source added to the config after the worker started was reported as "not in the config"', () => {
  it('the failed job says the worker read its config at start and must be restarted, on its first attempt, and is no run of the source', { timeout: 60_000 }, async () => {
    const prefix = testPrefix();
    const site = { name: 'city', restRoot: 'http://127.0.0.1:9/wp-json' };
    const config = writeConfig({ sites: [site], sources: [] });
    const worker = spawnWorker({ config, redisUrl: redisUrl(), prefix });
    try {
      // A worker listening on the queue has read its config (it reads the file before it starts listening).
      const listening = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
      await waitFor('the worker to listen', async () => ((await listening.getWorkers()).length > 0 ? true : undefined), 30_000);
      await listening.close();
      writeFileSync(config, JSON.stringify({ sites: [site], sources: [{ name: 'kurse', kind: 'csv', site: 'city', url: '/nonexistent/kurse.csv' }] }));
      const r = await runCli(['--config', config, '--redis', redisUrl(), '--prefix', prefix, 'enqueue', 'import-csv', '--name', 'kurse', '--wait'], {});
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/no CSV source named "kurse" in the worker's config/);
      expect(r.stderr).toMatch(/restart `calsync worker`/);
      const queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
      const [job] = await queue.getJobs(['failed']);
      await queue.close();
      expect(job?.attemptsMade).toBe(1);
      const redis = testRedis();
      try {
        expect(await new RunHistory(redis, { prefix }).list('kurse')).toEqual([]);
      } finally {
        await redis.quit();
      }
    } finally {
      await worker.kill('SIGTERM');
    }
  });
});
