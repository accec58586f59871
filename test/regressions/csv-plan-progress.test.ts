import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullConnection } from '../../src/queue/connection.ts';
import { redisUrl, testPrefix } from '../support/redis.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';
import { spawnWorker, waitForFinish, writeConfig } from '../support/worker-process.ts';

/**
 * Found onboarding a 30-row CSV through the queue: `enqueue import-csv --wait` drew
 * `plan [########] 1666% 500/30`. The planner counted each stored chunk as a full chunk (500 rows),
 * so its progress passed the file's row count on the last, short chunk.
 */
describe('regression: the CSV planner\'s progress counted a short last chunk as a full one (1666%, 500/30)', () => {
  let site: Awaited<ReturnType<typeof testSite>>;
  beforeAll(async () => {
    site = await testSite();
  });
  afterAll(() => site.close());

  it('never reports more rows planned than the file has, and ends at all of them', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-plan-progress-'));
    const file = path.join(dir, 'kurse.csv');
    const rows = Array.from({ length: 30 }, (_, i) => `Kochkurs ${i + 1},2031-03-${String(1 + (i % 28)).padStart(2, '0')} 18:00`);
    writeFileSync(file, ['Event Name,Event Start Date', ...rows, ''].join('\n'));
    const config = writeConfig({
      dataDir: path.join(dir, 'data'),
      sites: [{ name: 'city', restRoot: site.sandbox.url, auth: { user: USER, passwordEnv: 'CITY_PASSWORD' } }],
      sources: [{ name: 'kurse', kind: 'csv', site: 'city', url: file, chunkSize: 8 }],
    });
    const prefix = testPrefix();
    const queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
    const events = new QueueEvents('import', { connection: bullConnection(redisUrl()), prefix });
    await events.waitUntilReady();
    const worker = spawnWorker({ config, redisUrl: redisUrl(), prefix, env: { CITY_PASSWORD: PASSWORD }, args: ['--queues', 'import'] });
    const seen: { done: number; total: number }[] = [];
    try {
      const job = await queue.add('import-csv', { source: 'kurse' }, { attempts: 1 });
      events.on('progress', ({ jobId, data }) => {
        const p = data as { phase?: string; done?: number; total?: number };
        if (jobId === job.id && p.phase === 'plan') seen.push({ done: p.done!, total: p.total! });
      });
      await waitForFinish(queue, job, 60_000);
      await new Promise((r) => setTimeout(r, 300)); // the last progress event arrives
      expect(seen.length).toBeGreaterThan(0);
      for (const p of seen) expect(p.done, JSON.stringify(seen)).toBeLessThanOrEqual(p.total);
      expect(seen.at(-1)).toEqual({ done: 30, total: 30 });
    } finally {
      await worker.kill('SIGKILL');
      await events.close();
      await queue.close();
    }
  }, 90_000);
});
