import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, type Job } from 'bullmq';
import type { EventRecord } from '../../src/api/index.ts';
import { bullConnection } from '../../src/queue/connection.ts';
import { runSiteSync } from '../../src/runs/sync-site.ts';
import type { ReportJson } from '../../src/report/report.ts';
import { redisUrl, testPrefix } from '../support/redis.ts';
import { seedSite } from '../support/seed.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';
import { spawnWorker, waitFor, waitForFinish, writeConfig, type WorkerProcess } from '../support/worker-process.ts';

const EVENTS = 600;
/** Events the source gains while its planner is down (the kill test). */
const ADDED = 30;
const WINDOW = { from: '2027-01-01', to: '2027-12-31' };
/** The source answers slowly, so reading it (the planner) takes long enough to be overlapped and cut off. */
const SOURCE_LATENCY_MS = 60;

type Site = Awaited<ReturnType<typeof testSite>>;

function state(site: Site): string[] {
  return (site.sandbox.dump('en').events as EventRecord[])
    .filter((e) => e.status !== 'trash')
    .map((e) => [e.slug, e.title, e.start_date, e.end_date, e.timezone, (e.venue as { venue?: string } | undefined)?.venue ?? '', e.categories.map((c) => c.slug).sort().join('|')].join(' ¦ '))
    .sort();
}

/**
 * A queued sync writes pages while its planner (`sync-plan`) is still reading the source, and a
 * planner taken over after its worker was killed resumes from the pages it had stored.
 */
describe('a queued sync fans pages out while it reads the source', () => {
  let source: Site;
  let clean: Site;
  beforeAll(async () => {
    source = await testSite();
    clean = await testSite();
    await seedSite(source.client, ['en'], EVENTS);
    await runSiteSync({ from: { ...source.site, key: 'src', name: 'src' }, to: clean.site, lang: 'en', window: { from: new Date(WINDOW.from), to: new Date(`${WINDOW.to}T23:59:59Z`) }, retire: 'trash', onEdit: 'overwrite', dryRun: false });
    source.sandbox.setFaults({ latencyMs: SOURCE_LATENCY_MS });
  }, 120_000);
  afterAll(async () => {
    await source.close();
    await clean.close();
  });

  function setup(target: Site, from: Site = source) {
    const prefix = testPrefix();
    const config = writeConfig({
      sites: [
        { name: 'src', restRoot: from.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PASSWORD' }, concurrency: 2 },
        { name: 'dst', restRoot: target.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PASSWORD' }, concurrency: 4 },
      ],
      syncs: [{ name: 'copy', from: 'src', to: 'dst', window: WINDOW, retire: 'trash' }],
      worker: { concurrency: { sync: 2 }, lockDurationMs: 2000, stalledIntervalMs: 1000, shutdownTimeoutMs: 2000 },
    });
    const queue = new Queue('sync', { connection: bullConnection(redisUrl()), prefix });
    // Planners have a queue of their own (src/queue/names.ts COMPANIONS), served by every sync worker.
    const plans = new Queue('sync-plan', { connection: bullConnection(redisUrl()), prefix });
    const spawn = () => spawnWorker({ config, redisUrl: redisUrl(), prefix, env: { SB_PASSWORD: PASSWORD }, args: ['--queues', 'sync'] });
    const jobsNamed = async (name: string, states: ('completed' | 'active' | 'failed')[]): Promise<Job[]> => (await (name === 'sync-plan' ? plans : queue).getJobs(states, 0, -1)).filter((j) => j.name === name);
    const close = async () => {
      for (const q of [queue, plans]) {
        await q.obliterate({ force: true }).catch(() => undefined);
        await q.close();
      }
    };
    return { queue, jobsNamed, spawn, close };
  }


  it('pages are written before the planner has read the whole source', async () => {
    const target = await testSite();
    const { queue, jobsNamed, spawn, close } = setup(target);
    const worker = spawn();
    try {
      const finish = await waitForFinish(queue, await queue.add('sync-site', { sync: 'copy' }), 120_000);
      expect(finish.failedReason ?? '').toBe('');
      const plan = (await jobsNamed('sync-plan', ['completed']))[0] as Job;
      const pages = await jobsNamed('sync-page', ['completed']);
      expect(pages.length).toBe(Math.ceil(EVENTS / 50));
      const firstStart = Math.min(...pages.map((j) => j.processedOn ?? Infinity));
      expect(firstStart).toBeLessThan(plan.finishedOn as number);
      expect(state(target)).toEqual(state(clean));
    } finally {
      await worker.kill('SIGKILL');
      await close();
      await target.close();
    }
  }, 300_000);

  it('a planner killed mid-read resumes: the pages it stored are kept, no event is planned or created twice, the report counts each once', async () => {
    const target = await testSite();
    const { queue, jobsNamed, spawn, close } = setup(target);
    const workers: WorkerProcess[] = [spawn()];
    try {
      const run = await queue.add('sync-site', { sync: 'copy' }, { attempts: 3 });
      // A page written while the planner still reads: the kill cuts the planner off, not the end of a plan.
      await waitFor('a page written while the source is still being read', async () => {
        const planning = (await jobsNamed('sync-plan', ['active'])).length > 0;
        return planning && (await jobsNamed('sync-page', ['completed'])).length >= 1;
      }, 60_000, 10);
      await workers[0]!.kill('SIGKILL');
      // Meanwhile the source gains events at the start of the window: every page of its listing
      // shifts, so the delivery taking over lists pages unlike the ones stored before the kill.
      await Promise.all(Array.from({ length: ADDED }, (_, i) => source.client.events.create({ title: `Early ${i}`, start_date: '2027-01-01 08:00:00', end_date: '2027-01-01 09:00:00', timezone: 'UTC' } as never, { lang: 'en' })));
      workers.push(spawn());
      const finish = await waitForFinish(queue, run, 120_000);
      expect(finish.failedReason ?? '').toBe('');
      const plan = (await jobsNamed('sync-plan', ['completed']))[0];
      // The planner was taken over (stalled), so the second delivery resumed from stored pages.
      expect(plan?.stalledCounter).toBeGreaterThan(0);
      // Every source event is on the target once, each created with one POST.
      const titles = (site: Site) => (site.sandbox.dump('en').events as EventRecord[]).filter((e) => e.status !== 'trash').map((e) => e.title).sort();
      expect(titles(target)).toEqual(titles(source));
      expect(titles(target)).toHaveLength(EVENTS + ADDED);
      expect(target.sandbox.stats().byRoute['POST /events']).toBe(EVENTS + ADDED);
      const report = finish.returnvalue as ReportJson;
      expect(report.counts.events.failed).toBe(0);
      expect(report.counts.events.unchanged).toBe(0);
      expect(report.counts.events.created + report.counts.events.updated).toBe(EVENTS + ADDED);
      // Each page holds events no other page holds: their sizes add up to the source's events.
      const pages = await jobsNamed('sync-page', ['completed']);
      const planned = pages.map((j) => (j.returnvalue as { report: ReportJson }).report.counts.events);
      expect(planned.reduce((n, c) => n + c.created + c.updated + c.unchanged + c.failed, 0)).toBe(EVENTS + ADDED);
    } finally {
      for (const w of workers) await w.kill('SIGKILL');
      await close();
      await target.close();
    }
  }, 300_000);

  it('a planner that fails every attempt fails the run with its reason, and nothing is retired', async () => {
    // A source of its own, synced once in this process, then stopped while the queued run reads it.
    const from = await testSite();
    const target = await testSite();
    await seedSite(from.client, ['en'], 60);
    await runSiteSync({ from: { ...from.site, key: 'src', name: 'src' }, to: target.site, lang: 'en', window: { from: new Date(WINDOW.from), to: new Date(`${WINDOW.to}T23:59:59Z`) }, retire: 'trash', onEdit: 'overwrite', dryRun: false });
    const before = target.sandbox.stats().byRoute;
    from.sandbox.setFaults({ latencyMs: 300 });
    const { queue, jobsNamed, spawn, close } = setup(target, from);
    const worker = spawn();
    try {
      const run = await queue.add('sync-site', { sync: 'copy' });
      await waitFor('the planner reading the source', async () => (await jobsNamed('sync-plan', ['active'])).length > 0, 60_000, 10);
      await from.close();
      const finish = await waitForFinish(queue, run, 120_000);
      expect(finish.failedReason).toMatch(/reading the source \(en\) failed: /);
      const language = (await jobsNamed('sync-language', ['failed']))[0];
      expect(language?.failedReason).toMatch(/reading the source \(en\) failed/);
      // Failed at once (the language job's code is unrecoverable), not after its retries' backoff.
      expect(language?.attemptsMade).toBe(1);
      const after = target.sandbox.stats().byRoute;
      expect(after['DELETE /events/:id'] ?? 0).toBe(before['DELETE /events/:id'] ?? 0);
      expect((target.sandbox.dump('en').events as EventRecord[]).filter((e) => e.status === 'publish')).toHaveLength(60);
    } finally {
      await worker.kill('SIGKILL');
      await close();
      await target.close();
      await from.close().catch(() => undefined);
    }
  }, 120_000);
});
