import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { bullConnection } from '../../src/queue/connection.ts';
import { RunHistory } from '../../src/queue/history.ts';
import { runCli } from '../support/cli.ts';
import { redisUrl, testPrefix, testRedis } from '../support/redis.ts';
import { spawnWorker, waitFor, writeConfig } from '../support/worker-process.ts';

/**
 * Found running a source through the queue until it was paused (its feed answered 500): the next
 * `calsync enqueue import-ics --name <it> --wait` printed the worker's raw result,
 * `{"paused":true,"name":…,"lastError":…}`, and exited 0 ("nothing failed"), although the worker
 * skipped the run and nothing was imported.
 */
describe('regression: `enqueue --wait` of a paused source printed raw JSON and exited 0 although nothing ran', () => {
  it('says the source is paused, why, and how to resume it, and exits 1; --json still prints the result', { timeout: 120_000 }, async () => {
    const prefix = testPrefix();
    const config = writeConfig({ sites: [{ name: 'city', restRoot: 'http://127.0.0.1:9/wp-json' }], sources: [{ name: 'city-feed', kind: 'ics', site: 'city', url: 'https://feeds.example.org/city.ics' }] });
    const redis = testRedis();
    const worker = spawnWorker({ config, redisUrl: redisUrl(), prefix });
    const cli = (...args: string[]) => runCli(['--config', config, '--redis', redisUrl(), '--prefix', prefix, ...args], {});
    try {
      const history = new RunHistory(redis, { prefix, pauseAfterFailures: 1 });
      await history.record({ id: 'city-feed-1', name: 'city-feed', kind: 'import-ics', status: 'failed', startedAt: new Date().toISOString(), durationMs: 1, failures: [], error: 'feed answered 500' });
      expect(await history.paused('city-feed')).toBeDefined();
      // The worker is listening before the first command (on a loaded machine its start took most of a minute).
      const listening = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
      await waitFor('the worker to listen', async () => ((await listening.getWorkers()).length > 0 ? true : undefined), 60_000);
      await listening.close();

      const r = await cli('enqueue', 'import-ics', '--name', 'city-feed', '--wait');
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stdout).not.toContain('{"paused"');
      expect(r.stdout + r.stderr).toMatch(/city-feed is paused .*feed answered 500/);
      expect(r.stdout + r.stderr).toMatch(/calsync resume city-feed/);

      const j = await cli('enqueue', 'import-ics', '--name', 'city-feed', '--wait', '--json');
      expect(j.code).toBe(1);
      expect(JSON.parse(j.stdout)).toMatchObject({ paused: true, name: 'city-feed' });
    } finally {
      await worker.kill('SIGTERM');
      await redis.quit();
    }
  });
});
