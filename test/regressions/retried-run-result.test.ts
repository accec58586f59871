import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { JOBS } from '../../jobs/index.ts';
import { parseConfig } from '../../src/config/load.ts';
import { RunHistory } from '../../src/queue/history.ts';
import { defineJob, type JobDefinition, type JobDeps } from '../../src/queue/job-definition.ts';
import { fieldOf, METRIC_KEYS, MetricsRecorder } from '../../src/metrics/recorder.ts';
import type { ReportJson } from '../../src/report/report.ts';
import { testPrefix, testRedis } from '../support/redis.ts';
import { importWorkers, type ImportWorkers } from '../support/import-workers.ts';
import { resolveIcsPayload } from '../../jobs/import-ics.ts';
import { runIcsImport } from '../../src/runs/import-ics.ts';
import { icsParams } from '../../src/runs/options/import-ics.ts';
import { runContext } from '../../src/runs/context.ts';
import { PASSWORD, USER, feedServer, testSite } from '../support/site.ts';

const EVENTS = 30;
/** Events the first attempt creates before the site starts answering 500 to everything. */
const BEFORE_DOWN = 10;

const vevent = (i: number, uid = 'talk') => [
  'BEGIN:VEVENT', `UID:${uid}-${i}@example.org`, `SUMMARY:Talk ${i}`, `DTSTART:202705${String(1 + (i % 28)).padStart(2, '0')}T19${String(i % 60).padStart(2, '0')}00Z`, 'DURATION:PT1H', 'END:VEVENT',
];
const calendarOf = (n: number, uid?: string) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync test//EN', ...Array.from({ length: n }, (_, i) => vevent(i, uid)).flat(), 'END:VCALENDAR', ''].join('\r\n');
const calendar = calendarOf(EVENTS);
/** Events of the second source already on the site (imported by an earlier run) when its feed grows to EVENTS. */
const BEFORE = 10;
/** Events the first attempt retires before the site starts answering 500 to everything. */
const RETIRED_BEFORE_DOWN = 4;
/** Events the third source's feed keeps when it drops the rest (under the guard's half). */
const KEPT = 16;

/**
 * Found in review: a queued import whose first attempt wrote part of a feed before its site went
 * away, and whose retry then succeeded, returned (as the job's stored result: `enqueue --wait`, the
 * dashboard API) and counted in calsync_items_total only its last attempt: the events the first
 * attempt created showed as "unchanged", and no metric ever counted them as created. The history
 * record had been made whole (retried-run-history.test.ts); the result and the metrics were not.
 */
describe('regression: a run that succeeded on a retry returned and counted only its last attempt', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let feed: Awaited<ReturnType<typeof feedServer>>;
  let more: Awaited<ReturnType<typeof feedServer>>;
  let shrink: Awaited<ReturnType<typeof feedServer>>;
  let config: ReturnType<typeof parseConfig>;
  let redis: Redis;
  let workers: ImportWorkers;
  const prefix = testPrefix();
  beforeAll(async () => {
    env = await testSite();
    feed = await feedServer(calendar);
    more = await feedServer(calendarOf(BEFORE, 'more'));
    shrink = await feedServer(calendarOf(EVENTS, 'shrink'));
    redis = testRedis();
    process.env.CALSYNC_TEST_RETRY_PASSWORD = PASSWORD;
    config = parseConfig({
      sites: [{ name: 'sb', restRoot: env.sandbox.url, auth: { user: USER, passwordEnv: 'CALSYNC_TEST_RETRY_PASSWORD' }, concurrency: 1 }],
      sources: [
        { name: 'talks', kind: 'ics', site: 'sb', url: feed.url, allow: [new URL(feed.url).host], window: { from: '2027-01-01', to: '2027-12-31' } },
        { name: 'more', kind: 'ics', site: 'sb', url: more.url, allow: [new URL(more.url).host], window: { from: '2027-01-01', to: '2027-12-31' } },
        { name: 'shrink', kind: 'ics', site: 'sb', url: shrink.url, allow: [new URL(shrink.url).host], window: { from: '2027-01-01', to: '2027-12-31' }, retire: 'trash' },
      ],
      history: { pauseAfterFailures: 10 },
    });
    // The real import-ics job; its first attempt takes the site down once it has created BEFORE_DOWN
    // events, or retired RETIRED_BEFORE_DOWN.
    const real = JOBS['import-ics'] as JobDefinition;
    const downMidway = defineJob({
      ...real,
      async process(job, payload, deps: JobDeps, signal) {
        env.sandbox.setFaults({ errorRate: 0 });
        if (job.attemptsMade > 0) return real.process(job, payload, deps, signal);
        let created = 0;
        let retired = 0;
        const onRequest: JobDeps['onRequest'] = (site, info) => {
          deps.onRequest?.(site, info);
          const ok = info.route.startsWith('/events') && typeof info.status === 'number' && info.status < 300;
          if (ok && info.method === 'POST' && ++created === BEFORE_DOWN) env.sandbox.setFaults({ errorRate: 1 });
          if (ok && info.method === 'DELETE' && ++retired === RETIRED_BEFORE_DOWN) env.sandbox.setFaults({ errorRate: 1 });
        };
        return real.process(job, payload, { ...deps, onRequest }, signal);
      },
    });
    workers = await importWorkers(config, prefix, { ...JOBS, 'import-ics': downMidway as JobDefinition });
  });
  afterAll(async () => {
    await workers.close();
    await redis.quit();
    await feed.close();
    await more.close();
    await shrink.close();
    await env.close();
    delete process.env.CALSYNC_TEST_RETRY_PASSWORD;
  });

  it('the job result and the item metrics count the whole run: earlier writes once, as created', { timeout: 90_000 }, async () => {
    const queued = Date.now();
    const job = await workers.queue.add('import-ics', { source: 'talks' }, { attempts: 3, backoff: { type: 'fixed', delay: 300 } });
    const result = (await job.waitUntilFinished(workers.events, 60_000)) as ReportJson;
    expect((await workers.queue.getJob(job.id!))?.attemptsMade).toBeGreaterThanOrEqual(2); // it did fail once
    expect(env.sandbox.dump('en').events).toHaveLength(EVENTS);

    // The result: every event once, the first attempt's as created, not as unchanged.
    expect(result.counts.events).toMatchObject({ read: EVENTS, created: EVENTS, updated: 0, unchanged: 0, failed: 0 });
    expect(Date.parse(result.run.startedAt)).toBeLessThan(queued + 1000);
    expect(result.run.durationMs).toBeGreaterThanOrEqual(300);
    expect(result.warnings.join('\n')).toMatch(/succeeded on attempt 2; earlier: attempt 1 after \d+\.\d s \(\d+ created, 0 updated, 0 retired\): /);
    expect(result.requests!.total).toBeGreaterThan(EVENTS);
    // Its items agree: each event once, created, none left as the unchanged the last attempt saw.
    const events = result.items.filter((i) => i.kind === 'events');
    expect(new Set(events.map((i) => i.slug)).size).toBe(EVENTS);
    expect(events.filter((i) => i.outcome !== 'created')).toEqual([]);

    // The history tells the same run.
    const [run] = await new RunHistory(redis, { prefix }).list('talks');
    expect(run?.counts?.events).toMatchObject({ read: EVENTS, created: EVENTS, unchanged: 0 });

    // The metrics: created counted for every event once, nothing counted as unchanged.
    const item = (outcome: string) => fieldOf(METRIC_KEYS.items, { run: 'import-ics', kind: 'events', outcome });
    const metrics = new MetricsRecorder(redis, prefix);
    await expect.poll(async () => Number((await metrics.read())[item('created')] ?? 0), { timeout: 5000 }).toBe(EVENTS);
    expect(Number((await metrics.read())[item('unchanged')] ?? 0)).toBe(0);
  });

  it('events unchanged since an earlier run stay unchanged: the first attempt\'s writes are counted once, not taken from them', { timeout: 90_000 }, async () => {
    // An earlier run (inline, no job) put BEFORE events on the site; the feed then grows to EVENTS.
    await runIcsImport(icsParams(resolveIcsPayload({ source: 'more' }, config), config, { allowFiles: true }), runContext({ redis, prefix }));
    more.set(calendarOf(EVENTS, 'more'));
    const job = await workers.queue.add('import-ics', { source: 'more' }, { attempts: 3, backoff: { type: 'fixed', delay: 300 } });
    const result = (await job.waitUntilFinished(workers.events, 60_000)) as ReportJson;
    expect((await workers.queue.getJob(job.id!))?.attemptsMade).toBeGreaterThanOrEqual(2);
    // The first attempt created BEFORE_DOWN of the new events (the retry found them in the ledger, as
    // its job's writes); the retry created the rest; the BEFORE events of the earlier run are unchanged.
    expect(result.counts.events).toMatchObject({ read: EVENTS, created: EVENTS - BEFORE, updated: 0, unchanged: BEFORE, failed: 0 });
    const events = result.items.filter((i) => i.kind === 'events');
    expect(events.filter((i) => i.outcome === 'unchanged')).toHaveLength(BEFORE);
    expect(events.filter((i) => i.outcome === 'created' && i.earlier)).toHaveLength(BEFORE_DOWN);
    const [run] = await new RunHistory(redis, { prefix }).list('more');
    expect(run?.counts?.events).toMatchObject({ read: EVENTS, created: EVENTS - BEFORE, unchanged: BEFORE });
  });
  it('a retry after a failure mid-retirement counts the first attempt\'s retirements once (they are recorded with the job, and were in its log row)', { timeout: 90_000 }, async () => {
    await runIcsImport(icsParams(resolveIcsPayload({ source: 'shrink' }, config), config, { allowFiles: true }), runContext({ redis, prefix }));
    shrink.set(calendarOf(KEPT, 'shrink'));
    const job = await workers.queue.add('import-ics', { source: 'shrink' }, { attempts: 3, backoff: { type: 'fixed', delay: 300 } });
    const result = (await job.waitUntilFinished(workers.events, 60_000)) as ReportJson;
    expect((await workers.queue.getJob(job.id!))?.attemptsMade).toBeGreaterThanOrEqual(2);
    const gone = EVENTS - KEPT;
    const trashed = env.sandbox.dump('en').events.filter((e) => (e as { status: string; slug: string }).status === 'trash' && (e as { slug: string }).slug.includes('shrink'));
    expect(trashed).toHaveLength(gone);
    expect(result.warnings.join('\n')).toMatch(/earlier: attempt 1 after \d+\.\d s \(0 created, 0 updated, 4 retired\): /);
    expect(result.counts.events).toMatchObject({ read: KEPT, retired: gone, failed: 0 });
    const retired = result.items.filter((i) => i.kind === 'events' && i.outcome === 'retired');
    expect(retired).toHaveLength(gone);
    expect(new Set(retired.map((i) => i.slug)).size).toBe(gone);
    expect(retired.filter((i) => i.earlier)).toHaveLength(RETIRED_BEFORE_DOWN);
    const [run] = await new RunHistory(redis, { prefix }).list('shrink');
    expect(run?.counts?.events).toMatchObject({ retired: gone });
  });
});
