import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Queue, QueueEvents } from 'bullmq';
import { JOBS } from '../../jobs/index.ts';
import { parseConfig } from '../../src/config/load.ts';
import { bullConnection } from '../../src/queue/connection.ts';
import { RunHistory } from '../../src/queue/history.ts';
import { startWorkers } from '../../src/queue/worker.ts';
import { createLogger } from '../../src/util/log.ts';
import { generateIcsFeed } from '../support/generate-ics.ts';
import { redisUrl, testPrefix, testRedis } from '../support/redis.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';

const log = createLogger({ level: 'silent' });

/** A feed server that holds every request without answering until told to serve `body`. */
async function stallingFeed(body: string): Promise<{ url: string; seen: Promise<void>; serve(): void; close(): Promise<void> }> {
  let answer = false;
  let onSeen!: () => void;
  const seen = new Promise<void>((r) => (onSeen = r));
  const server = http.createServer((_req, res) => {
    onSeen();
    if (!answer) return; // hangs: the fetch waits for its 30 s headers timeout
    res.writeHead(200, { 'content-type': 'text/calendar; charset=utf-8' });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/feed.ics`,
    seen,
    serve: () => void (answer = true),
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

describe('regression: a worker stopped (SIGTERM) while a job ran past shutdownTimeoutMs did not cut the job off; it waited for it to end', () => {
  it('close(timeout) ends the running import at the timeout, puts it back in the queue without a failed run, and the next worker runs it', { timeout: 90_000 }, async () => {
    const env = await testSite();
    const feed = await stallingFeed(generateIcsFeed({ events: 5, seed: 11 }));
    const prefix = testPrefix();
    process.env.SB_PW_CUTOFF = PASSWORD;
    const config = parseConfig({
      sites: [{ name: 'sb', restRoot: env.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PW_CUTOFF' } }],
      sources: [{ name: 'slow', kind: 'ics', site: 'sb', url: feed.url, allow: [new URL(feed.url).host], pastDays: 3650, horizonDays: 3650 }],
    });
    const redis = testRedis();
    const queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
    const events = new QueueEvents('import', { connection: bullConnection(redisUrl()), prefix });
    await events.waitUntilReady();
    let second: Awaited<ReturnType<typeof startWorkers>> | undefined;
    try {
      const first = await startWorkers({ config, redisUrl: redisUrl(), jobs: JOBS, log, prefix, queues: ['import'] });
      const job = await queue.add('import-ics', { source: 'slow' }, { attempts: 1 });
      await feed.seen; // the job is running: its fetch waits on the feed
      const t0 = Date.now();
      const abandoned = await first.close(1000);
      const took = Date.now() - t0;
      // Before the fix: close() waited for the fetch's 30 s timeout, then the job failed.
      expect(took).toBeLessThan(6000);
      expect(abandoned).toBe(false);
      expect(['delayed', 'waiting', 'wait']).toContain(await job.getState());
      expect((await queue.getJob(job.id as string))?.attemptsMade).toBe(0);
      const history = new RunHistory(redis, { prefix });
      expect(await history.list('slow')).toHaveLength(0);
      // The next worker runs it to the end, with its one attempt intact.
      feed.serve();
      second = await startWorkers({ config, redisUrl: redisUrl(), jobs: JOBS, log, prefix, queues: ['import'] });
      const report = (await job.waitUntilFinished(events, 60_000)) as { counts: { events: { created: number } } };
      expect(report.counts.events.created).toBe(5);
      expect((await history.list('slow')).map((r) => r.status)).toEqual(['ok']);
    } finally {
      await second?.close(5000);
      await events.close();
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      await redis.quit();
      await feed.close();
      await env.close();
    }
  });
});
