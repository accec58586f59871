import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { bullConnection } from '../../src/queue/connection.ts';
import { RunHistory } from '../../src/queue/history.ts';
import { fieldOf, METRIC_KEYS, MetricsRecorder } from '../../src/metrics/recorder.ts';
import type { ReportJson } from '../../src/report/report.ts';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { redisUrl, testPrefix, testRedis } from '../support/redis.ts';
import { feedServer, PASSWORD, testSite, USER } from '../support/site.ts';
import { spawnWorker, waitFor, writeConfig, type WorkerProcess } from '../support/worker-process.ts';

const EVENTS = 30;
/** Events the first worker has created (with their ledger entries saved) when it is killed. */
const BEFORE_KILL = 8;
/** Per request: with one request at a time, the import takes several seconds, and the kill lands mid-import. */
const LATENCY_MS = 150;

const vevent = (i: number, uid = 'talk') => [
  'BEGIN:VEVENT', `UID:${uid}-${i}@example.org`, `SUMMARY:Talk ${i}`, `DTSTART:202705${String(1 + (i % 28)).padStart(2, '0')}T19${String(i % 60).padStart(2, '0')}00Z`,
  'DURATION:PT1H', 'LOCATION:Hall A\\, Main Street 1', 'CATEGORIES:Talks', 'END:VEVENT',
];
const calendarOf = (n: number, uid?: string) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync test//EN', ...Array.from({ length: n }, (_, i) => vevent(i, uid)).flat(), 'END:VCALENDAR', ''].join('\r\n');
const calendar = calendarOf(EVENTS);
/** Events the feed keeps when it drops the rest (under the guard's half, so the run retires them all). */
const KEPT = 16;
/** Retirements the first worker has done (and recorded) when it is killed. */
const RETIRED_BEFORE_KILL = 4;

/**
 * Found in review: a queued import whose worker was killed (`kill -9`) mid-import is taken over by
 * another worker once its lock lapses, and that takeover starts the run again. It found the events
 * the killed worker had created in the ledger, unchanged, and said so: the run's result, its history
 * record and calsync_items_total read "22 created, 8 unchanged" (and the venue unchanged) for a feed
 * whose 30 events were all created by that very run. The ledger entry now says which job wrote it
 * and how, so the takeover reports what the killed delivery did: created.
 */
describe('regression: a run taken over after its worker was killed reported the killed worker\'s writes as unchanged', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let feed: Awaited<ReturnType<typeof feedServer>>;
  let redis: Redis;
  let queue: Queue;
  const workers: WorkerProcess[] = [];
  const prefix = testPrefix();
  beforeAll(async () => {
    env = await testSite({ latencyMs: LATENCY_MS });
    feed = await feedServer(calendar);
    redis = testRedis();
    queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
  });
  afterAll(async () => {
    for (const w of workers) await w.kill('SIGKILL');
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await redis.quit();
    await feed.close();
    await env.close();
  });

  it('the takeover reports every event the run created as created, once, in its result, history and metrics', { timeout: 120_000 }, async () => {
    const config = writeConfig({
      sites: [{ name: 'sb', restRoot: env.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PASSWORD' }, concurrency: 1 }],
      sources: [{ name: 'talks', kind: 'ics', site: 'sb', url: feed.url, allow: [new URL(feed.url).host], window: { from: '2027-01-01', to: '2027-12-31' } }],
      // A killed worker's job is taken over within about a second (as the chaos tests do).
      worker: { concurrency: { import: 1 }, lockDurationMs: 2000, stalledIntervalMs: 1000, maxStalledCount: 5, shutdownTimeoutMs: 2000 },
    });
    const spawn = () => {
      const w = spawnWorker({ config, redisUrl: redisUrl(), prefix, env: { SB_PASSWORD: PASSWORD } });
      workers.push(w);
      return w;
    };
    const onSite = () => env.sandbox.dump('en').events.filter((e) => (e as { status: string }).status !== 'trash').length;
    const ledgerSize = async () => {
      const [key] = await redis.keys(`${prefix}:ledger:*:talks:events`);
      return key ? redis.hlen(key) : 0;
    };

    const first = spawn();
    const job = await queue.add('import-ics', { source: 'talks' }, { attempts: 1 });
    // Killed once it has created some events and stored their entries (between two creates).
    await waitFor('some events created and recorded', async () => {
      const n = onSite();
      return n >= BEFORE_KILL && n < EVENTS && (await ledgerSize()) === n;
    }, 60_000, 10);
    await first.kill('SIGKILL');
    // A request the killed worker had sent may still land: what the site and the ledger hold now is what it left.
    await new Promise((r) => setTimeout(r, 3 * LATENCY_MS));
    const created = onSite();
    // Created without its entry saved: the takeover cannot tell it from an event already there (updated).
    const unrecorded = created - (await ledgerSize());
    expect(created).toBeGreaterThanOrEqual(BEFORE_KILL);
    expect(created).toBeLessThan(EVENTS);
    expect(unrecorded).toBeGreaterThanOrEqual(0);
    expect(unrecorded).toBeLessThanOrEqual(1);

    spawn();
    const done = await waitFor('the takeover to finish the run', async () => {
      const j = await queue.getJob(job.id!);
      return j?.finishedOn ? j : undefined;
    }, 90_000, 200);
    expect(done.failedReason ?? '').toBe('');
    const result = done.returnvalue as ReportJson;

    // The site holds each event once.
    const events = env.sandbox.dump('en').events as Array<{ slug: string; status: string }>;
    expect(events.filter((e) => e.status !== 'trash')).toHaveLength(EVENTS);
    expect(new Set(events.map((e) => e.slug)).size).toBe(EVENTS);

    // The result: every event once, those the killed worker created as created, none unchanged.
    const whole = { read: EVENTS, created: EVENTS - unrecorded, updated: unrecorded, unchanged: 0, failed: 0 };
    expect(result.counts.events).toMatchObject(whole);
    expect(result.counts.venues).toMatchObject({ read: 1, created: 1, unchanged: 0 });
    // The category, created by the killed worker before its first event: created too.
    expect(result.counts.categories).toMatchObject({ read: 1, created: 1, unchanged: 0 });
    const items = result.items.filter((i) => i.kind === 'events');
    expect(new Set(items.map((i) => i.slug)).size).toBe(EVENTS);
    expect(items.filter((i) => i.outcome === 'unchanged')).toEqual([]);

    // The history record and the metrics tell the same run.
    const [run] = await new RunHistory(redis, { prefix }).list('talks');
    expect(run?.counts?.events).toMatchObject(whole);
    const item = (outcome: string) => fieldOf(METRIC_KEYS.items, { run: 'import-ics', kind: 'events', outcome });
    const metrics = new MetricsRecorder(redis, prefix);
    await expect.poll(async () => Number((await metrics.read())[item('created')] ?? 0), { timeout: 5000 }).toBe(EVENTS - unrecorded);
    expect(Number((await metrics.read())[item('unchanged')] ?? 0)).toBe(0);
  });

  it('a takeover after the killed worker had written the whole feed (its state stored, its job not yet completed) reports the run, not "feed unchanged"', { timeout: 60_000 }, async () => {
    const site = await testSite();
    try {
      const params: IcsImportParams = {
        location: feed.url, site: site.site, sourceKey: 'late', lang: 'en', window: { from: new Date('2027-01-01'), to: new Date('2027-12-31') }, retire: 'keep',
        onEdit: 'overwrite', defaultTimezone: 'UTC', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allow: [new URL(feed.url).host],
      };
      // The killed delivery: the whole run, up to the state it stores at its end.
      const job = { redis, prefix, jobMark: 'job-late-1' };
      expect((await runIcsImport(params, job)).counts.events).toMatchObject({ created: EVENTS });
      // The takeover (the same job): the feed again, its events as that delivery wrote them, nothing written twice.
      site.sandbox.resetStats();
      const takeover = await runIcsImport(params, job);
      expect(takeover.notModified).toBeUndefined();
      expect(takeover.counts.events).toMatchObject({ read: EVENTS, created: EVENTS, unchanged: 0 });
      expect(takeover.counts.venues).toMatchObject({ created: 1, unchanged: 0 });
      expect(takeover.counts.categories).toMatchObject({ created: 1, unchanged: 0 });
      expect(takeover.items.filter((i) => i.kind === 'categories')).toEqual([expect.objectContaining({ outcome: 'created', earlier: true })]);
      expect(site.sandbox.stats().writes).toBe(0);
      // The next run (another job) takes the feed as done, as before.
      expect((await runIcsImport(params, { redis, prefix, jobMark: 'job-late-2' })).notModified).toBe(true);
    } finally {
      await site.close();
    }
  });
  /**
   * The same takeover during retirement: the entries of the events the killed worker had retired were
   * gone from the ledger, so the takeover neither saw nor reported them. A user read "10 retired" for
   * a feed that had dropped 14 events, all of which that run moved to the trash. The ledger now keeps
   * a job's retirements beside its entries (Ledger.remove's `retired`), and the takeover reports them.
   */
  it('the takeover reports every event the run retired as retired, once, in its result, history and metrics', { timeout: 120_000 }, async () => {
    const source = await feedServer(calendarOf(EVENTS, 'gone'));
    const at = testPrefix();
    const imports = new Queue('import', { connection: bullConnection(redisUrl()), prefix: at });
    try {
      const config = writeConfig({
        sites: [{ name: 'sb', restRoot: env.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PASSWORD' }, concurrency: 1 }],
        sources: [{ name: 'gone', kind: 'ics', site: 'sb', url: source.url, allow: [new URL(source.url).host], window: { from: '2027-01-01', to: '2027-12-31' }, retire: 'trash' }],
        worker: { concurrency: { import: 1 }, lockDurationMs: 2000, stalledIntervalMs: 1000, maxStalledCount: 5, shutdownTimeoutMs: 2000 },
      });
      const spawn = () => {
        const w = spawnWorker({ config, redisUrl: redisUrl(), prefix: at, env: { SB_PASSWORD: PASSWORD } });
        workers.push(w);
        return w;
      };
      const finished = (id: string) => waitFor(`job ${id} to finish`, async () => {
        const j = await imports.getJob(id);
        return j?.finishedOn ? j : undefined;
      }, 90_000, 200);
      const trashed = () => env.sandbox.dump('en').events.filter((e) => (e as { status: string }).status === 'trash').length;
      const ledgerSize = async () => {
        const [key] = await redis.keys(`${at}:ledger:*:gone:events`);
        return key ? redis.hlen(key) : 0;
      };

      const first = spawn();
      const imported = await finished((await imports.add('import-ics', { source: 'gone' }, { attempts: 1 })).id!);
      expect((imported.returnvalue as ReportJson).counts.events).toMatchObject({ created: EVENTS });
      source.set(calendarOf(KEPT, 'gone'));
      const job = await imports.add('import-ics', { source: 'gone' }, { attempts: 1 });
      // Killed once it has retired some events and removed their entries (between two retirements).
      await waitFor('some events retired and recorded', async () => {
        const n = trashed();
        return n >= RETIRED_BEFORE_KILL && n < EVENTS - KEPT && (await ledgerSize()) === EVENTS - n;
      }, 60_000, 10);
      await first.kill('SIGKILL');
      await new Promise((r) => setTimeout(r, 3 * LATENCY_MS));
      // Retired with their entries removed: only the record of the retirement tells the takeover.
      const recorded = EVENTS - (await ledgerSize());
      expect(recorded).toBeGreaterThanOrEqual(RETIRED_BEFORE_KILL);

      spawn();
      const done = await finished(job.id!);
      expect(done.failedReason ?? '').toBe('');
      const result = done.returnvalue as ReportJson;
      const gone = EVENTS - KEPT;
      expect(trashed()).toBe(gone);
      expect(result.counts.events).toMatchObject({ read: KEPT, retired: gone, failed: 0 });
      expect(result.retire).toMatchObject({ candidates: gone, retired: gone, failed: 0 });
      const retired = result.items.filter((i) => i.kind === 'events' && i.outcome === 'retired');
      expect(new Set(retired.map((i) => i.slug)).size).toBe(gone);
      expect(retired.filter((i) => i.earlier)).toHaveLength(recorded);

      const [run] = await new RunHistory(redis, { prefix: at }).list('gone');
      expect(run?.counts?.events).toMatchObject({ retired: gone });
      const metrics = new MetricsRecorder(redis, at);
      const item = fieldOf(METRIC_KEYS.items, { run: 'import-ics', kind: 'events', outcome: 'retired' });
      await expect.poll(async () => Number((await metrics.read())[item] ?? 0), { timeout: 5000 }).toBe(gone);
    } finally {
      await imports.obliterate({ force: true }).catch(() => undefined);
      await imports.close();
      await source.close();
    }
  });
});
