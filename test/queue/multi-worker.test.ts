import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Papa from 'papaparse';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, type Job } from 'bullmq';
import type { SandboxDump, SandboxStats } from '../../src/sandbox/index.ts';
import { MARGIN_MS } from '../../src/queue/rate-limiter.ts';
import { writeEventsCsv } from '../support/generate-csv.ts';
import { bullConnection } from '../../src/queue/connection.ts';
import { redisUrl, testPrefix, testRedis } from '../support/redis.ts';
import { PASSWORD, USER } from '../support/site.ts';
import { spawnWorker, waitFor, writeConfig, type WorkerProcess } from '../support/worker-process.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const ROWS = 1500;
const CHUNK = 150;
const WORKERS = 4;
/**
 * The site's limit: the ~1,900 requests (the rows' creates and the term and venue lookups) take
 * ~23 s under it (83% of it is used, see MARGIN_MS). Low enough that four workers on a loaded
 * 2-core machine still go past it without a limit (at load average 21 they managed 244/s,
 * short of the 250 this test used before, so the test could not show the limit holding anything).
 */
const LIMIT = 100;
/** Per process: 4 chunk jobs at once, each with 16 requests in flight, far more than LIMIT needs. */
const JOBS_PER_WORKER = 4;
const SITE_CONCURRENCY = 16;

interface Report { counts: { events: { read: number; created: number; failed: number } } }

/**
 * The limiter's own schedule, read while it runs: the latest `next free slot` (ms, Redis clock) it
 * stored for the site. Slots are handed out one interval apart, so the slots taken since `start`
 * are at most (latest - start) / interval. The key expires about a second after the last slot, so
 * it is polled rather than read once at the end.
 */
function watchSchedule(key: string) {
  const redis = testRedis();
  let latest = 0;
  const poll = async () => {
    const v = Number(await redis.get(key));
    if (v > latest) latest = v;
  };
  const timer = setInterval(() => void poll().catch(() => undefined), 100);
  return {
    latest: () => latest,
    stop: async () => {
      clearInterval(timer);
      await redis.quit();
    },
  };
}

/**
 * A sandbox site in its own process, as a real site is: its clock, which the rate is measured
 * by, is not held up by the test runner's own work.
 */
async function siteProcess() {
  const child = spawn(process.execPath, [CLI, 'sandbox', '--port', '0'], { env: { ...process.env, CALSYNC_USER: USER, CALSYNC_PASSWORD: PASSWORD }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const url = await waitFor('the sandbox site', async () => {
    if (child.exitCode !== null) throw new Error(`sandbox exited: ${out}`);
    return /REST root:\s+(\S+)/.exec(out)?.[1];
  }, 45_000, 50);
  const side = async <T,>(p: string): Promise<T> => (await (await request(`${new URL(url).origin}/__sandbox/${p}`)).body.json()) as T;
  return {
    url,
    stats: () => side<SandboxStats>('stats'),
    dump: (lang: string) => side<SandboxDump>(`dump?ml_language=${lang}`),
    stop: () => new Promise<void>((r) => {
      if (child.exitCode !== null) return r();
      child.once('exit', () => r());
      child.kill('SIGKILL');
    }),
  };
}

describe('a large CSV import shared by several worker processes', () => {
  let limited: Awaited<ReturnType<typeof siteProcess>>;
  let free: Awaited<ReturnType<typeof siteProcess>>;
  let csv: string;
  beforeAll(async () => {
    [limited, free] = await Promise.all([siteProcess(), siteProcess()]);
    csv = path.join(mkdtempSync(path.join(tmpdir(), 'calsync-multi-')), 'bulk.csv');
    await writeEventsCsv(csv, { rows: ROWS, seed: 7 });
  });
  afterAll(async () => {
    await limited?.stop();
    await free?.stop();
  });

  it(`${WORKERS} workers on one queue write the exact site state and send nothing outside the limiter's schedule for ${LIMIT} requests/s`, async () => {
    const prefix = testPrefix();
    const site = { auth: { user: USER, passwordEnv: 'SB_PASSWORD' }, concurrency: SITE_CONCURRENCY };
    const config = writeConfig({
      sites: [
        { name: 'limited', restRoot: limited.url, requestsPerSecond: LIMIT, ...site },
        // The same workers and file against a site without a limit: what they would send otherwise.
        { name: 'free', restRoot: free.url, ...site },
      ],
      sources: [
        { name: 'bulk', kind: 'csv', site: 'limited', url: csv, chunkSize: CHUNK },
        { name: 'bulk-free', kind: 'csv', site: 'free', url: csv, chunkSize: CHUNK },
      ],
      worker: { concurrency: { import: JOBS_PER_WORKER }, shutdownTimeoutMs: 2000 },
    });
    const queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
    const workers: WorkerProcess[] = [];
    const spanSeconds = (jobs: Job[]) => (Math.max(...jobs.map((j) => j.finishedOn!)) - Math.min(...jobs.map((j) => j.processedOn!))) / 1000;
    const chunksOf = async (source: string) => (await queue.getCompleted(0, -1)).filter((j: Job) => j.name === 'import-csv-chunk' && (j.data as { payload: { source: string } }).payload.source === source);
    const run = async (source: string): Promise<Report> => {
      const planner = await queue.add('import-csv', { source });
      const planned = await waitFor(`${source} planned`, async () => (await queue.getJob(planner.id as string))?.returnvalue as { finishJobId: string } | undefined, 30_000);
      const finish = await waitFor(`${source} finished`, async () => {
        const j = await queue.getJob(planned.finishJobId);
        return j?.finishedOn ? j : undefined;
      }, 120_000, 100).catch((err: Error) => {
        throw new Error(`${err.message}; worker output: ${workers.map((w) => w.output().slice(-2000)).join('\n---\n')}`);
      });
      expect(finish.failedReason).toBeUndefined();
      return finish.returnvalue as Report;
    };
    try {
      for (let i = 0; i < WORKERS; i++) workers.push(spawnWorker({ config, redisUrl: redisUrl(), prefix, env: { SB_PASSWORD: PASSWORD } }));
      // All of them listening before the first job, so none gets a head start on the chunks.
      await waitFor(`${WORKERS} workers`, async () => (await queue.getWorkers()).length >= WORKERS, 90_000);

      expect((await run('bulk-free')).counts.events.failed).toBe(0);
      const freeStats = await free.stats();
      const freePeak = freeStats.peakPerSecond;
      const freeAverage = freeStats.total / spanSeconds(await chunksOf('bulk-free'));

      const schedule = watchSchedule(`${prefix}:ratelimit:limited:next`);
      const report = await run('bulk').finally(() => schedule.stop());
      const stats = await limited.stats();
      const planner = (await queue.getCompleted(0, -1)).find((j: Job) => j.name === 'import-csv' && (j.data as { source: string }).source === 'bulk');
      const chunks = await chunksOf('bulk');
      // While any chunk job ran: the span the site was written in (a little more, if anything).
      const seconds = spanSeconds(chunks);
      const average = stats.total / seconds;

      // Exact site state: every row once, by its own title and slug.
      const titles = Papa.parse<Record<string, string>>(readFileSync(csv, 'utf8'), { header: true, skipEmptyLines: true }).data.map((r) => r['Event Name']);
      expect(titles).toHaveLength(ROWS);
      const events = (await limited.dump('en')).events as { slug: string; title: string }[];
      expect(events).toHaveLength(ROWS);
      expect(new Set(events.map((e) => e.slug)).size).toBe(ROWS);
      expect(new Set(events.map((e) => e.title))).toEqual(new Set(titles));
      expect(stats.byRoute['POST /events']).toBe(ROWS);
      expect(report.counts.events.read).toBe(ROWS);
      expect(report.counts.events.created).toBe(ROWS);
      expect(report.counts.events.failed).toBe(0);

      // The chunks were shared: BullMQ records the worker (host:pid) that took each job.
      expect(chunks).toHaveLength(ROWS / CHUNK);
      const perWorker = new Map<string, number>();
      for (const j of chunks) perWorker.set(String(j.processedBy), (perWorker.get(String(j.processedBy)) ?? 0) + 1);
      const pids = new Set(workers.map((w) => String(w.child.pid)));
      for (const name of perWorker.keys()) expect(pids.has(name.split(':').at(-1)!), name).toBe(true);
      expect(perWorker.size).toBeGreaterThan(1);

      // The limiter's own accounting: no request reached the site without a slot of the shared
      // schedule. Every slot lies after the planner started (slot >= Redis time at the request) and
      // before the schedule's end, one interval (the limit spread over 1000 + MARGIN_MS) apart.
      // Exact whatever the machine's load: it does not depend on when requests arrived. A request
      // sent around the limiter, a limiter per process, or a shorter interval all fail it.
      const intervalMs = (1000 + MARGIN_MS) / LIMIT;
      expect(schedule.latest(), 'the limiter stored no schedule for the site').toBeGreaterThan(0);
      const slots = Math.floor((schedule.latest() - planner!.processedOn!) / intervalMs) + 1;
      expect(stats.total, `${stats.total} requests at the site, ${slots} slots in the limiter's schedule`).toBeLessThanOrEqual(slots);

      const figures = `limit ${LIMIT}/s, peak ${stats.peakPerSecond} in 1 s, average ${average.toFixed(1)}/s over ${seconds.toFixed(1)} s (${stats.total} requests), unlimited peak ${freePeak}/s and average ${freeAverage.toFixed(1)}/s, chunks per worker ${JSON.stringify(Object.fromEntries(perWorker))}`;
      // At the site: the busiest second is bounded loosely. On a loaded 2-core machine requests
      // given slots over more than a second arrive together (269/s against a limit of 250, 208 slots/s,
      // was seen: a spread of ~300 ms, above MARGIN_MS); the exact bound is the limiter's schedule above. 1.5 × LIMIT
      // still fails a missing or per-process limiter (four of them send ~4 × LIMIT × 0.83).
      expect(stats.peakPerSecond, figures).toBeLessThanOrEqual(1.5 * LIMIT);
      // The limit had something to hold: without it the same workers went past it (several times
      // over on an idle machine; a loaded one 244/s).
      expect(freePeak, figures).toBeGreaterThan(LIMIT);
      // And the limiter holds back no more than it must: the run kept close to the slot rate
      // (LIMIT × 1000 / (1000 + MARGIN_MS)), or to what the same workers managed without a limit
      // when the machine is too busy to reach it (75/s with 208 slots/s was seen at load 21). Half of
      // that: the two runs are a minute apart, and with test files running side by side the load
      // between them moves (45.9/s limited against 78.1/s unlimited was seen at load 12). A limiter
      // per process dividing the limit among 4 workers, or one that never reuses a slot, stays far below.
      const slotRate = LIMIT * 1000 / (1000 + MARGIN_MS);
      expect(average, figures).toBeGreaterThanOrEqual(0.5 * Math.min(slotRate, freeAverage));
    } finally {
      for (const w of workers) await w.kill('SIGKILL');
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
  }, 240_000);
});
