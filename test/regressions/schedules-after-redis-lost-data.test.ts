import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { bullConnection } from '../../src/queue/connection.ts';
import { startLocalRedis } from '../../src/queue/redis-server.ts';
import { spawnWorker, waitFor, writeConfig } from '../support/worker-process.ts';
import { testPrefix } from '../support/redis.ts';

/**
 * Found running calsync as a service: after a Redis without persistence restarted, its schedules
 * were gone, and the running worker never put them back, so no scheduled source ran again until the
 * worker was restarted, while /healthz said ok. The worker now reconciles the config's schedules
 * each time Redis comes back after an outage.
 */
describe('regression: schedules lost with a Redis that restarted without its data never came back', () => {
  it('the running worker puts them back once Redis is back', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-schedules-'));
    let redis = await startLocalRedis();
    const { port, password } = redis;
    const prefix = testPrefix();
    const config = writeConfig({
      sites: [{ name: 'sb', restRoot: 'http://127.0.0.1:9/wp-json' }],
      exports: [{ name: 'feed', site: 'sb', outDir: dir, schedule: '1d' }],
    });
    const worker = spawnWorker({ config, redisUrl: redis.url, prefix, schedules: true, args: ['--queues', 'import'] });
    const schedulers = async (url: string) => {
      const q = new Queue('export', { connection: bullConnection(url), prefix });
      try {
        return (await q.getJobSchedulers()).map((s) => s.key);
      } finally {
        await q.close();
      }
    };
    try {
      await waitFor('the schedules reconciled', async () => /schedules reconciled/.test(worker.output()), 20_000);
      expect(await schedulers(redis.url)).toEqual(['export:feed']);
      await redis.stop();
      redis = await startLocalRedis({ port, password });
      // (A Redis without persistence comes back empty; the worker reconnects within moments.)
      await waitFor('the schedules back', async () => (await schedulers(redis.url)).length > 0, 20_000, 250);
      expect(await schedulers(redis.url)).toEqual(['export:feed']);
    } finally {
      await worker.kill();
      await redis.stop();
    }
  });
});
