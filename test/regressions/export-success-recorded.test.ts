import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { JOBS } from '../../jobs/index.ts';
import { parseConfig } from '../../src/config/load.ts';
import { bullConnection } from '../../src/queue/connection.ts';
import { RunHistory } from '../../src/queue/history.ts';
import { startWorkers } from '../../src/queue/worker.ts';
import { createLogger } from '../../src/util/log.ts';
import { runCli } from '../support/cli.ts';
import { redisUrl, testPrefix, testRedis } from '../support/redis.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';

/**
 * Found running calsync as a service against real TEC sites: a successful export never reached the
 * run history (only reports did, and an export returns its files), so `calsync runs --source afeed`
 * said "no runs recorded yet", and a success never ended the export's run of failures: with the
 * site stopped and started in turn (fail, ok, fail, ok, fail), the third failure paused the export
 * and a scheduled feed stopped updating. A successful export is now recorded, with its events per
 * feed, and ends the run of failures.
 */
describe('regression: successful exports were not recorded, so failures between them paused the export', () => {
  let site: Awaited<ReturnType<typeof testSite>>;
  let redis: Redis;
  beforeAll(async () => {
    site = await testSite();
    redis = testRedis();
    await site.client.events.create({ title: 'Concert', start_date: '2027-03-01 10:00:00', end_date: '2027-03-01 11:00:00', timezone: 'UTC' }, { lang: 'en' });
  });
  afterAll(async () => {
    redis.disconnect();
    await site.close();
  });

  it('a success is a history record that ends the run of failures; `calsync runs` shows it', { timeout: 60_000 }, async () => {
    const prefix = testPrefix();
    process.env.SB_PW_EXPORT = PASSWORD;
    const config = parseConfig({
      sites: [{ name: 'sb', restRoot: site.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PW_EXPORT' } }],
      exports: [{ name: 'afeed', site: 'sb', languages: ['en'], from: '2027-01-01', to: '2027-12-31', outDir: mkdtempSync(path.join(tmpdir(), 'calsync-afeed-')) }],
      history: { pauseAfterFailures: 2 },
    });
    const running = await startWorkers({ config, redisUrl: redisUrl(), jobs: JOBS, log: createLogger({ level: 'silent' }), prefix, queues: ['export'] });
    const queue = new Queue('export', { connection: bullConnection(redisUrl()), prefix });
    const events = new QueueEvents('export', { connection: bullConnection(redisUrl()), prefix });
    await events.waitUntilReady();
    const history = new RunHistory(redis, { prefix, pauseAfterFailures: 2 });
    const failure = () => history.record({ id: `f${Date.now()}`, name: 'afeed', kind: 'export-ics', status: 'failed', startedAt: new Date().toISOString(), durationMs: 0, failures: [], error: 'nothing listens at the site' });
    try {
      await failure();
      const job = await queue.add('export-ics', { export: 'afeed' }, { attempts: 1 });
      await job.waitUntilFinished(events, 30_000);
      const [last] = await history.list('afeed');
      expect(last).toMatchObject({ name: 'afeed', kind: 'export-ics', status: 'ok', counts: { exported: { en: 1 } }, jobId: job.id });
      // One failure after the success: the first of a new run of failures, not the second.
      expect((await failure()).paused).toBe(false);
      expect(await history.paused('afeed')).toBeUndefined();
      const runs = await runCli(['--prefix', prefix, 'runs', '--source', 'afeed'], { REDIS_URL: redisUrl() });
      expect(runs.stdout).toMatch(/afeed export-ics OK \d+\.\ds en: 1 events/);
    } finally {
      await running.close(5000);
      await events.close();
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
  });
});
