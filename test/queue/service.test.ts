import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { JOBS } from '../../jobs/index.ts';
import { parseConfig } from '../../src/config/load.ts';
import { bullConnection } from '../../src/queue/connection.ts';
import { waitForRun } from '../../src/queue/follow.ts';
import { RunHistory } from '../../src/queue/history.ts';
import { reconcileSchedulers } from '../../src/queue/schedulers.ts';
import { openQueues, startWorkers } from '../../src/queue/worker.ts';
import { RedisRateLimiter } from '../../src/queue/rate-limiter.ts';
import { createLogger } from '../../src/util/log.ts';
import { generateIcsFeed } from '../support/generate-ics.ts';
import { redisUrl, testPrefix, testRedis } from '../support/redis.ts';
import { seedSite } from '../support/seed.ts';
import { feedServer, PASSWORD, USER, testSite } from '../support/site.ts';

const log = createLogger({ level: 'silent' });

describe('the worker as a service', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = testRedis();
  });
  afterAll(async () => redis.quit());

  it('reconciles job schedulers with the config: adds, updates, removes, and leaves the rest', async () => {
    const prefix = testPrefix();
    const queues = openQueues(redisUrl(), prefix);
    const site = { name: 'city', restRoot: 'http://127.0.0.1:1/wp-json' };
    const v1 = parseConfig({ sites: [site], sources: [{ name: 'a', kind: 'ics', site: 'city', url: 'https://x/a.ics', schedule: '30m' }, { name: 'b', kind: 'ics', site: 'city', url: 'https://x/b.ics', schedule: '0 * * * *' }] });
    try {
      const first = await reconcileSchedulers(queues, v1);
      expect(first.filter((c) => c.action === 'added').map((c) => c.id).sort()).toEqual(['source:a', 'source:b']);
      const again = await reconcileSchedulers(queues, v1);
      expect(again.every((c) => c.action === 'unchanged')).toBe(true);
      const v2 = parseConfig({ sites: [site], sources: [{ name: 'a', kind: 'ics', site: 'city', url: 'https://x/a.ics', schedule: '15m' }, { name: 'c', kind: 'ics', site: 'city', url: 'https://x/c.ics', schedule: '1h' }] });
      const second = await reconcileSchedulers(queues, v2);
      const by = (a: string) => second.filter((c) => c.action === a).map((c) => c.id).sort();
      expect(by('updated')).toEqual(['source:a']);
      expect(by('added')).toEqual(['source:c']);
      expect(by('removed')).toEqual(['source:b']);
      const live = await queues.import.getJobSchedulers(0, -1);
      expect(live.map((s) => s.key).sort()).toEqual(['source:a', 'source:c']);
      expect(live.find((s) => s.key === 'source:a')?.every).toBe(15 * 60_000);
    } finally {
      for (const q of Object.values(queues)) {
        await q.obliterate({ force: true }).catch(() => undefined);
        await q.close();
      }
    }
  });

  it('shuts down gracefully mid-job: the running import finishes, nothing lost or doubled', async () => {
    const env = await testSite({ latencyMs: 5 });
    const feed = await feedServer(generateIcsFeed({ events: 150, seed: 3 }));
    const prefix = testPrefix();
    const config = parseConfig({ sites: [{ name: 'sb', restRoot: env.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PW' } }], sources: [{ name: 'gen', kind: 'ics', site: 'sb', url: feed.url, allow: [new URL(feed.url).host], pastDays: 3650, horizonDays: 3650 }] });
    process.env.SB_PW = PASSWORD;
    const running = await startWorkers({ config, redisUrl: redisUrl(), jobs: JOBS, log, prefix, queues: ['import'] });
    const queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
    try {
      const job = await queue.add('import-ics', { source: 'gen' });
      while ((await job.getState()) !== 'active') await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 200));
      await running.close(60_000); // graceful: waits for the job
      const state = await job.getState();
      expect(state).toBe('completed');
      const done = await queue.getJob(job.id as string);
      const report = done?.returnvalue as { counts: { events: { created: number; read: number } } };
      const events = env.sandbox.dump('en').events as { slug: string }[];
      expect(events.length).toBe(report.counts.events.created);
      expect(new Set(events.map((e) => e.slug)).size).toBe(events.length);
    } finally {
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      await feed.close();
      await env.close();
    }
  });

  it('keeps run history, pauses a source after N failed runs and resumes it', async () => {
    const prefix = testPrefix();
    const config = parseConfig({
      sites: [{ name: 'dead', restRoot: 'http://127.0.0.1:1/wp-json' }],
      sources: [{ name: 'broken', kind: 'ics', site: 'dead', url: 'http://127.0.0.1:1/feed.ics', allow: ['127.0.0.1:1'] }],
      history: { keep: 10, pauseAfterFailures: 2 },
    });
    const running = await startWorkers({ config, redisUrl: redisUrl(), jobs: JOBS, log, prefix, queues: ['import'] });
    const queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
    const events = new QueueEvents('import', { connection: bullConnection(redisUrl()), prefix });
    await events.waitUntilReady();
    const history = new RunHistory(redis, { prefix, pauseAfterFailures: 2 });
    try {
      for (let i = 0; i < 2; i++) {
        const job = await queue.add('import-ics', { source: 'broken' }, { attempts: 1 });
        await expect(job.waitUntilFinished(events, 30_000)).rejects.toThrow(/127\.0\.0\.1/);
      }
      const runs = await history.list('broken');
      expect(runs).toHaveLength(2);
      expect(runs[0]).toMatchObject({ status: 'failed', name: 'broken' });
      expect(runs[0]?.error).toMatch(/could not|refused|ECONNREFUSED|connect/i);
      expect(await history.paused('broken')).toMatchObject({ failures: 2 });
      // While paused, a run is skipped, not attempted.
      const skipped = await queue.add('import-ics', { source: 'broken' }, { attempts: 1 });
      expect(await skipped.waitUntilFinished(events, 30_000)).toMatchObject({ paused: true });
      expect(await history.resume('broken')).toBe(true);
      expect(await history.paused('broken')).toBeUndefined();
    } finally {
      await running.close(5000);
      await events.close();
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
  });

  it('a source paused after its run was planned still finishes that run (its pages, retirement and lock release)', async () => {
    const prefix = testPrefix();
    const [src, dst] = [await testSite(), await testSite()];
    await seedSite(src.client, ['en'], 120);
    const auth = { user: USER, passwordEnv: 'SB_PASSWORD' };
    process.env.SB_PASSWORD = PASSWORD;
    const config = parseConfig({
      sites: [{ name: 'src', restRoot: src.sandbox.url, auth }, { name: 'dst', restRoot: dst.sandbox.url, auth }],
      syncs: [{ name: 'copy', from: 'src', to: 'dst', languages: ['en'], window: { from: '2027-01-01', to: '2027-12-31' } }],
      history: { pauseAfterFailures: 1 },
      worker: { concurrency: { sync: 1 } },
    });
    const running = await startWorkers({ config, redisUrl: redisUrl(), jobs: JOBS, log, prefix, queues: ['sync'] });
    const queue = new Queue('sync', { connection: bullConnection(redisUrl()), prefix });
    const events = new QueueEvents('sync', { connection: bullConnection(redisUrl()), prefix });
    await events.waitUntilReady();
    const history = new RunHistory(redis, { prefix, pauseAfterFailures: 1 });
    try {
      const planner = await queue.add('sync-site', { sync: 'copy' });
      // The moment planning is done, the pair gets paused (as after a failed run elsewhere).
      const pausedNow = new Promise<void>((resolve) => {
        events.on('completed', async ({ jobId }) => {
          if (jobId !== planner.id) return;
          await history.record({ id: 'x', name: 'copy', kind: 'sync-site', status: 'failed', startedAt: new Date().toISOString(), durationMs: 0, failures: [], error: 'elsewhere' });
          resolve();
        });
      });
      const report = (await waitForRun(planner, queue, events, { timeoutMs: 60_000 })) as { counts: { events: { read: number; created: number } } };
      await pausedNow;
      expect(await history.paused('copy')).toBeDefined();
      expect(report.counts.events).toMatchObject({ read: 120, created: 120 });
      expect(await redis.exists(`${prefix}:lock:sync-copy`)).toBe(0);
      // New runs of the pair are skipped until it is resumed.
      const next = await queue.add('sync-site', { sync: 'copy' });
      expect(await next.waitUntilFinished(events, 30_000)).toMatchObject({ paused: true });
    } finally {
      await running.close(5000);
      await events.close();
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      await src.close();
      await dst.close();
    }
  });

  it('shares one request-rate limit across limiters (as across worker processes)', async () => {
    const key = `${testPrefix()}:ratelimit:site`;
    const limiters = [0, 1, 2, 3].map(() => new RedisRateLimiter(testRedis(), key, 20));
    const stamps: number[] = [];
    const started = Date.now();
    await Promise.all(limiters.map(async (l) => {
      for (let i = 0; i < 15; i++) {
        await l.acquire();
        stamps.push(Date.now());
      }
    }));
    for (const l of limiters) await l.redis.quit();
    stamps.sort((a, b) => a - b);
    // 60 acquisitions at 20/s: never more than 20 inside any one-second window.
    for (let i = 0; i + 20 < stamps.length; i++) expect(stamps[i + 20]! - stamps[i]!).toBeGreaterThanOrEqual(990);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
  });
});

describe('the same import delivered twice', () => {
  it('runs once at a time: the second delivery waits for the first and then writes nothing', async () => {
    const env = await testSite({ latencyMs: 3 });
    const feed = await feedServer(generateIcsFeed({ events: 80, seed: 5 }));
    const prefix = testPrefix();
    process.env.SB_PW = PASSWORD;
    const config = parseConfig({ sites: [{ name: 'sb', restRoot: env.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PW' } }], sources: [{ name: 'twice', kind: 'ics', site: 'sb', url: feed.url, allow: [new URL(feed.url).host], pastDays: 3650, horizonDays: 3650 }] });
    // Two workers, as two machines would be; each may pick up one delivery at the same moment.
    const a = await startWorkers({ config, redisUrl: redisUrl(), jobs: JOBS, log, prefix, queues: ['import'] });
    const b = await startWorkers({ config, redisUrl: redisUrl(), jobs: JOBS, log, prefix, queues: ['import'] });
    const queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
    const events = new QueueEvents('import', { connection: bullConnection(redisUrl()), prefix });
    await events.waitUntilReady();
    try {
      const [j1, j2] = await Promise.all([queue.add('import-ics', { source: 'twice' }), queue.add('import-ics', { source: 'twice' })]);
      type R = { counts: { events: { created: number; read: number } }; notModified?: boolean; unchangedReason?: string };
      const [r1, r2] = (await Promise.all([j1.waitUntilFinished(events, 60_000), j2.waitUntilFinished(events, 60_000)])) as R[];
      // One delivery imports; the other runs after it (the lock) and finds the feed's content the
      // same as in that clean run with the same options, so it skips the work (issue 13 item 1).
      const [first, second] = r1!.counts.events.created > 0 ? [r1!, r2!] : [r2!, r1!];
      const created = r1!.counts.events.created + r2!.counts.events.created;
      expect(created).toBe(first.counts.events.read);
      expect(first.counts.events.read).toBeGreaterThan(0);
      expect(second).toMatchObject({ notModified: true, unchangedReason: 'feed content unchanged since the last run' });
      expect(env.sandbox.stats().byRoute['POST /events']).toBe(created);
      const all = env.sandbox.dump('en').events as { slug: string }[];
      expect(new Set(all.map((e) => e.slug)).size).toBe(all.length);
    } finally {
      await a.close(5000);
      await b.close(5000);
      await events.close();
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      await feed.close();
      await env.close();
    }
  });
});
