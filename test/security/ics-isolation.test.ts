import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullConnection } from '../../src/queue/connection.ts';
import { RunHistory } from '../../src/queue/history.ts';
import { generateIcsFeed } from '../support/generate-ics.ts';
import { redisUrl, testPrefix, testRedis } from '../support/redis.ts';
import { feedServer, PASSWORD, USER, testSite } from '../support/site.ts';
import { spawnWorker, waitFor, writeConfig, type WorkerProcess } from '../support/worker-process.ts';

/**
 * Issue 14 part 2, replayed against a real `calsync worker` process: a feed that needs more memory
 * than the parser may use exhausted the V8 heap of the worker (every job in it died, and the stalled
 * job killed the next worker too). Now the parse runs in a worker thread with a heap limit: the job
 * fails with a reason and the same process completes the next job. And a job whose worker dies under
 * it (whatever the cause) ends failed after maxStalledCount takeovers, recorded in the run history.
 */
const HEAP_MB = 64;
/**
 * One VALARM with 1.5 M properties (~10 MB): far more than 64 MB of parsed objects. (Inside a VALARM,
 * because a VEVENT's own unknown properties are dropped as they are read: test/ics/isolate.test.ts.)
 */
const HOSTILE = `BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nSUMMARY:x\r\nDTSTART:20270101T100000Z\r\nBEGIN:VALARM\r\n${'X-A:y\r\n'.repeat(1_500_000)}END:VALARM\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`;

async function finished(queue: Queue, job: Job, timeoutMs = 120_000): Promise<Job> {
  return waitFor(`job ${job.id} to finish`, async () => {
    const j = await queue.getJob(job.id as string);
    return j?.finishedOn ? j : undefined;
  }, timeoutMs, 200);
}

describe('regression: a hostile feed exhausted the worker process heap (issue 14)', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let redis: Redis;
  beforeAll(async () => {
    env = await testSite();
    redis = testRedis();
  });
  afterAll(async () => {
    await redis.quit();
    await env.close();
  });

  it('a feed that exceeds the parser heap fails its job; the same worker process then completes a normal job', async () => {
    const hostile = await feedServer(HOSTILE);
    const normal = await feedServer(generateIcsFeed({ events: 20, seed: 5, start: new Date(Date.UTC(2027, 0, 4)) }));
    const prefix = testPrefix();
    const site = { name: 'sb', restRoot: env.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PW' } };
    const config = writeConfig({
      sites: [site],
      sources: [
        { name: 'hostile', kind: 'ics', site: 'sb', url: hostile.url, allow: [new URL(hostile.url).host], pastDays: 3650, horizonDays: 3650 },
        { name: 'normal', kind: 'ics', site: 'sb', url: normal.url, allow: [new URL(normal.url).host], pastDays: 3650, horizonDays: 3650 },
      ],
    });
    const worker = spawnWorker({ config, redisUrl: redisUrl(), prefix, env: { SB_PW: PASSWORD, CALSYNC_ICS_MAX_HEAP_MB: String(HEAP_MB) }, args: ['--queues', 'import'] });
    const queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
    try {
      const bad = await finished(queue, await queue.add('import-ics', { source: 'hostile' }, { attempts: 3 }));
      expect(await bad.getState()).toBe('failed');
      expect(bad.failedReason).toMatch(new RegExp(`exceeded ${HEAP_MB} MB while parsing`));
      // Same input, same outcome: not retried.
      expect(bad.attemptsMade).toBe(1);
      expect(worker.child.exitCode, worker.output()).toBeNull();

      const good = await finished(queue, await queue.add('import-ics', { source: 'normal' }, { attempts: 1 }));
      expect(await good.getState(), `${good.failedReason} ${worker.output()}`).toBe('completed');
      expect((good.returnvalue as { counts: { events: { created: number } } }).counts.events.created).toBeGreaterThan(0);
      // One process did both: it never restarted.
      expect(good.processedBy).toBe(bad.processedBy);
    } finally {
      await worker.kill();
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      await hostile.close();
      await normal.close();
    }
  });

  // Three worker processes start one after the other (each bounded by its own wait below); on a
  // loaded 2-core machine that alone can pass the default 60 s test timeout.
  it('a job whose worker process dies under it ends failed after maxStalledCount takeovers, and its source is paused', { timeout: 300_000 }, async () => {
    // A feed server that accepts and never answers: the job stays active while we kill its worker.
    // Its request count says which delivery is really running the job: a delivery that only found
    // the run lock of the dead one still held goes back to delayed, and killing it then is no stall.
    let fetches = 0;
    const hang = http.createServer(() => void fetches++);
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    const hangUrl = `http://127.0.0.1:${(hang.address() as AddressInfo).port}/feed.ics`;
    const normal = await feedServer(generateIcsFeed({ events: 5, seed: 6, start: new Date(Date.UTC(2027, 0, 4)) }));
    const prefix = testPrefix();
    const config = writeConfig({
      sites: [{ name: 'sb', restRoot: env.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PW' } }],
      sources: [
        { name: 'poison', kind: 'ics', site: 'sb', url: hangUrl, allow: [new URL(hangUrl).host] },
        { name: 'fine', kind: 'ics', site: 'sb', url: normal.url, allow: [new URL(normal.url).host], pastDays: 3650, horizonDays: 3650 },
      ],
      worker: { lockDurationMs: 1000, stalledIntervalMs: 500, maxStalledCount: 1 },
      history: { pauseAfterFailures: 1 },
    });
    const spawn = (): WorkerProcess => spawnWorker({ config, redisUrl: redisUrl(), prefix, env: { SB_PW: PASSWORD }, args: ['--queues', 'import'] });
    const queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
    const workers: WorkerProcess[] = [];
    try {
      const job = await queue.add('import-ics', { source: 'poison' }, { attempts: 1 });
      // Two worker processes die while running it (maxStalledCount 1 allows one takeover).
      for (let started = 1; started <= 2; started++) {
        const w = spawn();
        workers.push(w);
        // The second fetch comes one lockDuration (1 s) after the first worker died, plus a worker
        // start: 30 s is far from the fixed minute the import's run lock used to outlive its worker.
        await waitFor(`worker ${started} to fetch the feed`, async () => fetches >= started, started === 1 ? 90_000 : 30_000, 100);
        await w.kill('SIGKILL');
      }
      const survivor = spawn();
      workers.push(survivor);
      const failed = await finished(queue, job, 90_000);
      expect(await failed.getState()).toBe('failed');
      expect(failed.failedReason).toMatch(/stalled more than allowable limit/);
      const history = new RunHistory(redis, { prefix, keep: 50, pauseAfterFailures: 1 });
      const paused = await waitFor('the run history to record it', () => history.paused('poison'), 20_000, 100);
      expect(paused.lastError).toMatch(/stopped 2 times/);

      const next = await finished(queue, await queue.add('import-ics', { source: 'fine' }, { attempts: 1 }));
      expect(await next.getState(), `${next.failedReason} ${survivor.output()}`).toBe('completed');
      expect(survivor.child.exitCode).toBeNull();
    } finally {
      for (const w of workers) await w.kill();
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      hang.closeAllConnections();
      await new Promise<void>((r) => hang.close(() => r()));
      await normal.close();
    }
  });
});
