import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, type Job } from 'bullmq';
import type { EventRecord } from '../../src/api/index.ts';
import type { Language } from '../../src/model/languages.ts';
import { bullConnection } from '../../src/queue/connection.ts';
import { runSiteSync } from '../../src/runs/sync-site.ts';
import type { ReportJson } from '../../src/report/report.ts';
import { redisUrl, testPrefix } from '../support/redis.ts';
import { seedSite } from '../support/seed.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';
import { spawnWorker, waitFor, waitForFinish, writeConfig, type WorkerProcess } from '../support/worker-process.ts';

const LANGS: Language[] = ['en', 'fr', 'de'];
const PER_LANG = 400;
const WINDOW = { from: '2027-01-01T00:00:00Z', to: '2027-12-31T23:59:59Z' };

/** A site's live events as comparable lines (ids differ between sites; slugs, fields and links must not). */
function state(site: Awaited<ReturnType<typeof testSite>>, lang: string): string[] {
  return (site.sandbox.dump(lang).events as EventRecord[])
    .filter((e) => e.status !== 'trash')
    .map((e) => [e.slug, e.title, e.start_date, e.end_date, e.timezone, e.all_day, (e.venue as { venue?: string } | undefined)?.venue ?? '', e.organizer.map((o) => o.organizer).join('|'), e.categories.map((c) => c.slug).sort().join('|'), e.tags.map((t) => t.slug).sort().join('|')].join(' ¦ '))
    .sort();
}

describe('sync-site as a BullMQ flow across worker processes', () => {
  let source: Awaited<ReturnType<typeof testSite>>;
  let clean: Awaited<ReturnType<typeof testSite>>;
  beforeAll(async () => {
    source = await testSite();
    clean = await testSite();
    await seedSite(source.client, LANGS, PER_LANG);
    // The reference: the same sync run in this process, without any crash.
    for (const lang of LANGS) {
      await runSiteSync({ from: { ...source.site, key: 'src', name: 'src' }, to: clean.site, lang, window: { from: new Date(WINDOW.from), to: new Date(WINDOW.to) }, retire: 'trash', onEdit: 'overwrite', dryRun: false });
    }
  }, 120_000);
  afterAll(async () => {
    await source.close();
    await clean.close();
  });

  const setup = (target: Awaited<ReturnType<typeof testSite>>) => {
    const prefix = testPrefix();
    const config = writeConfig({
      sites: [
        { name: 'src', restRoot: source.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PASSWORD' }, languages: LANGS },
        { name: 'dst', restRoot: target.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PASSWORD' }, languages: LANGS, concurrency: 4 },
      ],
      syncs: [{ name: 'copy', from: 'src', to: 'dst', window: { from: WINDOW.from.slice(0, 10), to: WINDOW.to.slice(0, 10) }, retire: 'trash' }],
      worker: { concurrency: { sync: 2 }, lockDurationMs: 2000, stalledIntervalMs: 1000, shutdownTimeoutMs: 2000 },
    });
    const queue = new Queue('sync', { connection: bullConnection(redisUrl()), prefix });
    const spawn = () => spawnWorker({ config, redisUrl: redisUrl(), prefix, env: { SB_PASSWORD: PASSWORD }, args: ['--queues', 'sync'] });
    return { prefix, queue, spawn };
  };
  const finishOf = (queue: Queue, planner: Job, timeoutMs = 180_000) => waitForFinish(queue, planner, timeoutMs);

  it('a worker killed mid-sync: pages finished before are not redone, the rest is picked up, the target ends as a clean sync', async () => {
    const target = await testSite();
    const { queue, spawn } = setup(target);
    const workers: WorkerProcess[] = [spawn()];
    try {
      const planner = await queue.add('sync-site', { sync: 'copy' }, { attempts: 3 });
      // Killed while a page is being written, so the kill cuts one off.
      const doneBefore = await waitFor('4 written pages and one being written', async () => {
        const done = (await queue.getCompleted(0, -1)).filter((j) => j.name === 'sync-page');
        return done.length >= 4 && (await queue.getActive()).some((j) => j.name === 'sync-page') && done;
      }, 60_000, 20);
      const killedAt = Date.now();
      await workers[0]!.kill('SIGKILL');
      const finishedAt = new Map(doneBefore.map((j) => [j.id, j.finishedOn]));
      // Two workers take over, sharing the remaining pages.
      workers.push(spawn(), spawn());
      const finish = await finishOf(queue, planner, 60_000).catch(async (err) => {
        const counts = await queue.getJobCounts();
        const failed = (await queue.getFailed()).map((j) => `${j.id}: ${j.failedReason}`);
        throw new Error(`${(err as Error).message}; jobs ${JSON.stringify(counts)}; failed ${failed.join('\n')}; worker output: ${workers.map((w) => w.output().slice(-3000)).join('\n---\n')}`);
      });
      expect(finish.failedReason ?? '').toBe('');
      const report = finish.returnvalue as ReportJson;
      const pages = (await queue.getCompleted(0, -1)).filter((j) => j.name === 'sync-page');
      expect(pages.length).toBe(LANGS.length * Math.ceil(PER_LANG / 50));
      for (const [id, at] of finishedAt) expect((await queue.getJob(id as string))?.finishedOn).toBe(at);
      // At least one page was cut off by the kill and recovered as stalled; the workers that
      // took over both wrote pages.
      expect(pages.some((j) => j.stalledCounter > 0)).toBe(true);
      // (started after the kill: a page the killed worker finished between the check above and the kill is its own)
      const after = pages.filter((j) => (j.processedOn ?? 0) >= killedAt);
      expect(new Set(after.map((j) => j.processedBy)).size).toBe(2);

      for (const lang of LANGS) expect(state(target, lang), lang).toEqual(state(clean, lang));
      expect(report.counts.events.read).toBe(LANGS.length * PER_LANG);
      expect(report.counts.events.failed).toBe(0);
      // The page cut off by the kill was written again without doubling anything: every event
      // was created with exactly one POST, and no event was retired.
      expect(target.sandbox.stats().byRoute['POST /events']).toBe(LANGS.length * PER_LANG);
      // The page taken over reports the events its killed delivery created as created, not unchanged
      // (takeover-report.test.ts); one created just before its entry was saved reads updated.
      expect(report.counts.events.unchanged).toBe(0);
      expect(report.counts.events.created + report.counts.events.updated).toBe(LANGS.length * PER_LANG);
      expect(report.counts.events.retired).toBe(0);
    } finally {
      for (const w of workers) await w.kill('SIGKILL');
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      await target.close();
    }
  }, 300_000);

  it('two syncs of the same pair never interleave: the second waits for the first to finish', async () => {
    const target = await testSite();
    const { queue, spawn } = setup(target);
    const workers = [spawn(), spawn()];
    try {
      const [a, b] = [await queue.add('sync-site', { sync: 'copy' }), await queue.add('sync-site', { sync: 'copy' })];
      const [fa, fb] = [await finishOf(queue, a), await finishOf(queue, b)];
      const [first, second] = (fa.finishedOn ?? 0) < (fb.finishedOn ?? 0) ? [fa, fb] : [fb, fa];
      const jobsOf = async (finish: Job) => (await queue.getCompleted(0, -1)).filter((j) => String(j.id).startsWith(String(finish.id).replace(/-finish$/, '')));
      // (the finish job releases the lock before BullMQ records its own end)
      const firstEnd = Math.max(...(await jobsOf(first)).filter((j) => j.name !== 'sync-finish').map((j) => j.finishedOn ?? 0));
      const secondStart = Math.min(...(await jobsOf(second)).map((j) => j.processedOn ?? Infinity));
      expect(secondStart).toBeGreaterThanOrEqual(firstEnd);
      // The second run found everything in place.
      expect((second.returnvalue as ReportJson).counts.events).toMatchObject({ unchanged: LANGS.length * PER_LANG, created: 0, updated: 0 });
      for (const lang of LANGS) expect(state(target, lang)).toEqual(state(clean, lang));
    } finally {
      for (const w of workers) await w.kill('SIGKILL');
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      await target.close();
    }
  }, 300_000);
});
