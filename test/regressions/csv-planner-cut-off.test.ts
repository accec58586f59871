import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importCsvJob } from '../../jobs/import-csv.ts';
import { JOBS } from '../../jobs/index.ts';
import { parseConfig } from '../../src/config/load.ts';
import type { CalsyncConfig } from '../../src/config/schema.ts';
import { RunHistory } from '../../src/queue/history.ts';
import { bullConnection } from '../../src/queue/connection.ts';
import type { JobDeps } from '../../src/queue/job-definition.ts';
import { startWorkers } from '../../src/queue/worker.ts';
import type { ReportJson } from '../../src/report/report.ts';
import { createLogger } from '../../src/util/log.ts';
import { importWorkers, type ImportWorkers } from '../support/import-workers.ts';
import { redisUrl, testPrefix, testRedis } from '../support/redis.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';

const ROWS = 12;
const CHUNK = 3;
const csvText = (tag: string): string =>
  `title,start_date,end_date,timezone\n${Array.from({ length: ROWS }, (_, i) => `${tag} talk ${i + 1},2027-04-${String(i + 1).padStart(2, '0')} 18:00,2027-04-${String(i + 1).padStart(2, '0')} 19:00,UTC`).join('\n')}\n`;

/** A CSV server that holds every request without answering until told to serve `body`. */
async function stallingCsv(body: string): Promise<{ url: string; seen: Promise<void>; serve(): void; close(): Promise<void> }> {
  let answer = false;
  let onSeen!: () => void;
  const seen = new Promise<void>((r) => (onSeen = r));
  const server = http.createServer((_req, res) => {
    onSeen();
    if (!answer) return; // hangs: the fetch waits for its headers timeout
    res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/events.csv`,
    seen,
    serve: () => void (answer = true),
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

/** The report of the flow's finish job, once it has run. */
async function finishReport(w: ImportWorkers, finishJobId: string): Promise<ReportJson> {
  const finish = await w.queue.getJob(finishJobId);
  return (await finish!.waitUntilFinished(w.events, 60_000)) as ReportJson;
}

/**
 * Found running calsync as a service: the queued CSV planner (`import-csv`) ignored its job's abort
 * signal, so a worker's shutdown could not cut it off: it went on reading the file and storing
 * chunks, and when it outlasted the grace the process ended under it and the job was taken over as
 * stalled one lock duration later.
 */
describe('regression: the queued CSV planner ignored the abort signal at shutdown', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let redis: Redis;
  beforeAll(async () => {
    env = await testSite();
    redis = testRedis();
    process.env.SB_PW_CSV_CUTOFF = PASSWORD;
  });
  afterAll(async () => {
    await redis.quit();
    await env.close();
  });
  const configFor = (name: string, url: string): CalsyncConfig =>
    parseConfig({
      sites: [{ name: 'sb', restRoot: env.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PW_CSV_CUTOFF' } }],
      sources: [{ name, kind: 'csv', site: 'sb', url, allow: [new URL(url).host], chunkSize: CHUNK }],
    });
  const created = (source: string) => (env.sandbox.dump('en').events as { slug: string }[]).filter((e) => e.slug.startsWith(`${source}-`)).map((e) => e.slug);

  it('a planner waiting on its CSV is cut off at the shutdown timeout, put back without a failed run, and the next worker imports every row once', { timeout: 90_000 }, async () => {
    const feed = await stallingCsv(csvText('stalled'));
    const prefix = testPrefix();
    const config = configFor('stalled', feed.url);
    const log = createLogger({ level: 'silent' });
    const queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
    let second: ImportWorkers | undefined;
    const first = await startWorkers({ config, redisUrl: redisUrl(), jobs: JOBS, log, prefix, queues: ['import'] });
    try {
      const job = await queue.add('import-csv', { source: 'stalled' }, { attempts: 1 });
      await feed.seen; // the planner is running: its fetch waits on the CSV
      const t0 = Date.now();
      const abandoned = await first.close(1000);
      const took = Date.now() - t0;
      // Before the fix: the fetch went on, and the workers were abandoned after the 5 s grace.
      expect(abandoned).toBe(false);
      expect(took).toBeLessThan(4000);
      expect(['delayed', 'waiting', 'wait']).toContain(await job.getState());
      expect((await queue.getJob(job.id as string))?.attemptsMade).toBe(0);
      const history = new RunHistory(redis, { prefix });
      expect(await history.list('stalled')).toHaveLength(0);
      // The next worker runs it to the end.
      feed.serve();
      second = await importWorkers(config, prefix);
      const planned = (await job.waitUntilFinished(second.events, 60_000)) as { finishJobId: string; chunks: number };
      expect(planned.chunks).toBe(ROWS / CHUNK);
      const report = await finishReport(second, planned.finishJobId);
      expect(report.counts.events).toMatchObject({ read: ROWS, created: ROWS, failed: 0 });
      expect(created('stalled')).toHaveLength(ROWS);
      expect(new Set(created('stalled')).size).toBe(ROWS);
      expect((await history.list('stalled')).map((r) => r.status)).toEqual(['ok']);
    } finally {
      await second?.close();
      await queue.close();
      await feed.close();
    }
  });

  it('a planner cut off between chunks stores no further chunk and adds no flow; its rerun stores each chunk once and the import loses none', { timeout: 60_000 }, async () => {
    const feed = await stallingCsv(csvText('between'));
    feed.serve();
    const prefix = testPrefix();
    const config = configFor('between', feed.url);
    const workers = await importWorkers(config, prefix);
    try {
      const cut = new AbortController();
      const stored: number[] = [];
      // The signal fires while chunk 1 is being stored (as a shutdown would, at any moment).
      const watched = new Proxy(workers.running.deps.redis, {
        get(target, key) {
          const value = Reflect.get(target, key, target) as unknown;
          if (key !== 'set' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
          return (...args: unknown[]) => {
            const i = /:chunk:(\d+)$/.exec(String(args[0]))?.[1];
            if (i !== undefined) {
              stored.push(Number(i));
              if (Number(i) === 1) cut.abort("cut off by the worker's shutdown timeout");
            }
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
      const deps: JobDeps = { ...workers.running.deps, redis: watched };
      const job = { id: 'planner-7', updateProgress: async () => undefined } as unknown as Job;
      await expect(importCsvJob.process(job, { source: 'between' }, deps, cut.signal)).rejects.toMatchObject({ code: 'aborted' });
      expect(stored).toEqual([0, 1]);
      expect(await workers.queue.getJob('csv-planner-7-finish')).toBeUndefined();
      expect(created('between')).toHaveLength(0);

      stored.length = 0;
      const rerun = await importCsvJob.process(job, { source: 'between' }, deps, new AbortController().signal);
      expect(stored).toEqual([0, 1, 2, 3]);
      expect(rerun).toMatchObject({ chunks: ROWS / CHUNK, finishJobId: 'csv-planner-7-finish' });
      const report = await finishReport(workers, rerun.finishJobId);
      expect(report.counts.events).toMatchObject({ read: ROWS, created: ROWS, failed: 0 });
      expect(new Set(created('between')).size).toBe(ROWS);
      expect(created('between')).toHaveLength(ROWS);
    } finally {
      await workers.close();
      await feed.close();
    }
  });
});
