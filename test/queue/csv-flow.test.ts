import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { writeEventsCsv } from '../support/generate-csv.ts';
import { bullConnection } from '../../src/queue/connection.ts';
import { redisUrl, testPrefix } from '../support/redis.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';
import { spawnWorker, waitFor, writeConfig } from '../support/worker-process.ts';

const ROWS = 2400;
const CHUNK = 200;

describe('CSV import as a BullMQ flow across worker processes', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let csv: string;
  beforeAll(async () => {
    env = await testSite();
    csv = path.join(mkdtempSync(path.join(tmpdir(), 'calsync-csv-')), 'bulk.csv');
    await writeEventsCsv(csv, { rows: ROWS, seed: 42 });
  });
  afterAll(async () => env.close());

  it('a worker killed mid-file is restarted: finished chunks are not redone, no row is created twice, the site ends exact', async () => {
    const prefix = testPrefix();
    const config = writeConfig({
      sites: [{ name: 'sb', restRoot: env.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PASSWORD' }, concurrency: 4 }],
      sources: [{ name: 'bulk', kind: 'csv', site: 'sb', url: csv, chunkSize: CHUNK }],
      worker: { concurrency: { import: 2 }, lockDurationMs: 3000, stalledIntervalMs: 1000, shutdownTimeoutMs: 2000 },
    });
    const queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
    const spawnOne = () => spawnWorker({ config, redisUrl: redisUrl(), prefix, env: { SB_PASSWORD: PASSWORD } });
    let worker = spawnOne();
    try {
      const planner = await queue.add('import-csv', { source: 'bulk' });
      const chunkCount = ROWS / CHUNK;
      // Let a few chunks finish, then kill -9 in the middle of the file.
      const doneBefore = await waitFor('3 finished chunks', async () => {
        const done = (await queue.getCompleted(0, -1)).filter((j) => j.name === 'import-csv-chunk');
        return done.length >= 3 && done;
      }, 120_000, 50);
      await worker.kill('SIGKILL');
      const finishedAt = new Map(doneBefore.map((j) => [j.id, j.finishedOn]));
      expect(finishedAt.size).toBeLessThan(chunkCount);

      worker = spawnOne();
      const plannerDone = await waitFor('planner result', async () => (await queue.getJob(planner.id as string))?.returnvalue as { finishJobId: string } | undefined, 60_000);
      const finish = await waitFor('the finish job', async () => {
        const j = await queue.getJob(plannerDone.finishJobId);
        return j?.finishedOn ? j : undefined;
      }, 180_000, 200);
      const report = finish.returnvalue as { counts: { events: { read: number; created: number; updated: number; unchanged: number; failed: number } } };
      // The new worker said which job it took over from the killed one.
      expect(worker.output()).toMatch(/taking over a job whose worker stopped answering \(its lock expired\)/);
      // Chunks finished before the kill were not processed again.
      for (const [id, at] of finishedAt) expect((await queue.getJob(id as string))?.finishedOn).toBe(at);

      const events = env.sandbox.dump('en').events as { slug: string; status: string }[];
      const slugs = new Set(events.map((e) => e.slug));
      expect(events).toHaveLength(ROWS);
      expect(slugs.size).toBe(ROWS);
      expect(report.counts.events.read).toBe(ROWS);
      expect(report.counts.events.failed).toBe(0);
      // The chunk cut off by the kill, run again, reports the rows its first delivery created as
      // created, not unchanged (takeover-report.test.ts); one created just before its entry was saved reads updated.
      expect(report.counts.events.unchanged).toBe(0);
      expect(report.counts.events.created + report.counts.events.updated).toBe(ROWS);
      // Each row created exactly once on the site.
      expect(env.sandbox.stats().byRoute['POST /events']).toBe(ROWS);
      // A graceful stop of a worker that has processed jobs ends the process promptly and cleanly.
      const t = Date.now();
      expect(await worker.kill('SIGTERM')).toBe(0);
      expect(Date.now() - t).toBeLessThan(10_000);
    } finally {
      await worker.kill('SIGKILL');
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
    // Its own waits allow minutes: two worker processes starting and a kill -9 on a loaded machine.
  }, 240_000);
});
