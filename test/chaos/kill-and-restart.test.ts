import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { runIcsImport } from '../../src/runs/import-ics.ts';
import { generateIcsFeed } from '../support/generate-ics.ts';
import { writeEventsCsv } from '../support/generate-csv.ts';
import { bullConnection } from '../../src/queue/connection.ts';
import { startLocalRedis } from '../../src/queue/redis-server.ts';
import { prng } from '../../src/util/random.ts';
import { redisUrl, testPrefix } from '../support/redis.ts';
import { feedServer, PASSWORD, testSite, USER } from '../support/site.ts';
import { spawnWorker, waitFor, writeConfig } from '../support/worker-process.ts';

/** The whole site as comparable lines: two sites with the same lines hold the same events. */
function state(dump: { events: unknown[] }): string[] {
  return (dump.events as any[]).filter((e) => e.status !== 'trash').map((e) => [e.slug, e.title, e.start_date, e.end_date, e.timezone, e.venue?.venue ?? '', e.categories.map((c: any) => c.name).sort().join('|')].join(' ¦ ')).sort();
}

const WORKER = { concurrency: { import: 2 }, lockDurationMs: 2000, stalledIntervalMs: 1000, maxStalledCount: 50, shutdownTimeoutMs: 2000 };

describe('chaos: workers killed with -9 at random points, Redis restarted mid-run', () => {
  it('a 5k-event ICS import survives 10 kills: the site equals a clean import, no duplicates, none missing', async () => {
    const ics = generateIcsFeed({ events: 5000, seed: 99, recurringShare: 0, start: new Date(Date.UTC(2027, 0, 4)), days: 300 });
    const feed = await feedServer(ics);
    const clean = await testSite();
    const site = await testSite();
    const prefix = testPrefix();
    try {
      await runIcsImport({ location: feed.url, site: clean.site, sourceKey: 'big', lang: 'en', window: { from: new Date('2027-01-01'), to: new Date('2027-12-31') }, retire: 'keep', onEdit: 'overwrite', defaultTimezone: 'UTC', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allow: [new URL(feed.url).host] });
      const config = writeConfig({
        sites: [{ name: 'sb', restRoot: site.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PASSWORD' } }],
        sources: [{ name: 'big', kind: 'ics', site: 'sb', url: feed.url, allow: [new URL(feed.url).host], pastDays: 0, horizonDays: 3650 }],
        worker: WORKER,
      });
      // The clean run used an explicit 2027 window; the worker's window (now .. +10 years) covers it too.
      const queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
      const spawn = () => spawnWorker({ config, redisUrl: redisUrl(), prefix, env: { SB_PASSWORD: PASSWORD } });
      const job = await queue.add('import-ics', { source: 'big' }, { attempts: 20, backoff: { type: 'fixed', delay: 500 } });
      const r = prng(5);
      for (let kill = 0; kill < 10; kill++) {
        const w = spawn();
        await new Promise((res) => setTimeout(res, 1500 + Math.floor(r() * 2500)));
        await w.kill('SIGKILL');
      }
      const last = spawn();
      try {
        await waitFor('the import to complete', async () => (await queue.getJob(job.id as string))?.finishedOn, 600_000, 500);
        const done = await queue.getJob(job.id as string);
        expect(done?.failedReason ?? '').toBe('');
        expect(state(site.sandbox.dump('en'))).toEqual(state(clean.sandbox.dump('en')));
      } finally {
        await last.kill('SIGKILL');
        await queue.obliterate({ force: true }).catch(() => undefined);
        await queue.close();
      }
    } finally {
      await feed.close();
      await clean.close();
      await site.close();
    }
  }, 900_000);

  it('a CSV flow survives 10 kills with the exact rows on the site', async () => {
    const ROWS = 5000;
    const csv = path.join(mkdtempSync(path.join(tmpdir(), 'calsync-chaos-')), 'rows.csv');
    await writeEventsCsv(csv, { rows: ROWS, seed: 3 });
    const site = await testSite();
    const prefix = testPrefix();
    const config = writeConfig({ sites: [{ name: 'sb', restRoot: site.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PASSWORD' } }], sources: [{ name: 'rows', kind: 'csv', site: 'sb', url: csv, chunkSize: 250 }], worker: WORKER });
    const queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
    const spawn = () => spawnWorker({ config, redisUrl: redisUrl(), prefix, env: { SB_PASSWORD: PASSWORD } });
    try {
      const planner = await queue.add('import-csv', { source: 'rows' }, { attempts: 20 });
      const r = prng(8);
      for (let kill = 0; kill < 10; kill++) {
        const w = spawn();
        await new Promise((res) => setTimeout(res, 1500 + Math.floor(r() * 2500)));
        await w.kill('SIGKILL');
      }
      const last = spawn();
      try {
        const plan = await waitFor('the plan', async () => (await queue.getJob(planner.id as string))?.returnvalue as { finishJobId: string } | undefined, 300_000, 200);
        await waitFor('the finish job', async () => (await queue.getJob(plan.finishJobId))?.finishedOn, 600_000, 500);
        const events = (site.sandbox.dump('en').events as { slug: string }[]);
        expect(events).toHaveLength(ROWS);
        expect(new Set(events.map((e) => e.slug)).size).toBe(ROWS);
      } finally {
        await last.kill('SIGKILL');
      }
    } finally {
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      await site.close();
    }
  }, 900_000);

  it('Redis restarted mid-run (AOF on): the import completes with the exact final state', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'calsync-aof-'));
    let redis = await startLocalRedis({ dataDir });
    const port = redis.port;
    const feed = await feedServer(generateIcsFeed({ events: 1500, seed: 4, recurringShare: 0, start: new Date(Date.UTC(2027, 0, 4)), days: 300 }));
    const clean = await testSite();
    const site = await testSite({ latencyMs: 2 });
    const prefix = testPrefix();
    try {
      await runIcsImport({ location: feed.url, site: clean.site, sourceKey: 'aof', lang: 'en', window: { from: new Date('2027-01-01'), to: new Date('2027-12-31') }, retire: 'keep', onEdit: 'overwrite', defaultTimezone: 'UTC', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allow: [new URL(feed.url).host] });
      const config = writeConfig({ sites: [{ name: 'sb', restRoot: site.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PASSWORD' } }], sources: [{ name: 'aof', kind: 'ics', site: 'sb', url: feed.url, allow: [new URL(feed.url).host], horizonDays: 3650 }], worker: WORKER });
      const worker = spawnWorker({ config, redisUrl: redis.url, prefix, env: { SB_PASSWORD: PASSWORD } });
      let queue = new Queue('import', { connection: bullConnection(redis.url), prefix });
      const job = await queue.add('import-ics', { source: 'aof' }, { attempts: 10, backoff: { type: 'fixed', delay: 1000 } });
      await waitFor('some writes', async () => site.sandbox.stats().writes > 300, 120_000, 50);
      await queue.close();
      await redis.stop();
      await new Promise((r) => setTimeout(r, 1500));
      redis = await startLocalRedis({ dataDir, port, password: redis.password });
      queue = new Queue('import', { connection: bullConnection(redis.url), prefix });
      try {
        await waitFor('the import to complete after the restart', async () => (await queue.getJob(job.id as string))?.finishedOn, 600_000, 500);
        expect(state(site.sandbox.dump('en'))).toEqual(state(clean.sandbox.dump('en')));
      } finally {
        await worker.kill('SIGKILL');
        await queue.close();
      }
    } finally {
      await redis.stop();
      await feed.close();
      await clean.close();
      await site.close();
    }
  }, 900_000);
});
