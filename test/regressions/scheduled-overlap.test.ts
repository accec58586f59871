import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOBS } from '../../jobs/index.ts';
import { parseConfig } from '../../src/config/load.ts';
import { bullConnection } from '../../src/queue/connection.ts';
import { JOB_RETRY } from '../../src/queue/names.ts';
import { startWorkers, type RunningWorkers } from '../../src/queue/worker.ts';
import { createLogger } from '../../src/util/log.ts';
import { redisUrl, testPrefix } from '../support/redis.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';

const FEED = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:slow-1@example.org\r\nSUMMARY:Slow\r\nDTSTART:20270301T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n';

/**
 * Found running calsync as a service: a source scheduled every 30 s whose run took longer queued a
 * run per tick behind it, each polling the run lock every 2-4 s (an info line each time), and then ran
 * them back to back for nothing.
 */
describe('regression: scheduled runs of a source piled up behind a run that outlasted the interval', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let feed: http.Server;
  let fetches = 0;
  let running: RunningWorkers;
  let queue: Queue;
  const prefix = testPrefix();
  beforeAll(async () => {
    env = await testSite();
    // Every fetch of the feed takes 2.5 s: longer than the schedule's 1 s interval.
    feed = http.createServer((_req, res) => {
      fetches++;
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/calendar' }).end(FEED), 2500);
    });
    await new Promise<void>((r) => feed.listen(0, '127.0.0.1', r));
    const host = `127.0.0.1:${(feed.address() as AddressInfo).port}`;
    process.env.CALSYNC_TEST_OVERLAP_PW = PASSWORD;
    const config = parseConfig({
      sites: [{ name: 'sb', restRoot: env.sandbox.url, auth: { user: USER, passwordEnv: 'CALSYNC_TEST_OVERLAP_PW' } }],
      sources: [{ name: 'slow', kind: 'ics', site: 'sb', url: `http://${host}/slow.ics`, allow: [host], window: { from: '2027-01-01', to: '2027-12-31' } }],
      worker: { concurrency: { import: 4 } },
    });
    running = await startWorkers({ config, jobs: JOBS, redisUrl: redisUrl(), log: createLogger({ level: 'silent' }), prefix, queues: ['import'] });
    queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
  });
  afterAll(async () => {
    await queue.removeJobScheduler('slow-every-second').catch(() => undefined);
    await running.close(5000);
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await new Promise<void>((r) => feed.close(() => r()));
    await env.close();
  });

  it('a tick that finds the last run still going is skipped, so at most one run waits for the lock', async () => {
    await queue.upsertJobScheduler('slow-every-second', { every: 1000 }, { name: 'import-ics', data: { source: 'slow' }, opts: JOB_RETRY.run });
    await new Promise((r) => setTimeout(r, 7000));
    await queue.removeJobScheduler('slow-every-second');
    // Runs that waited on the lock sit in "delayed" (the scheduler's own next run went with it).
    expect(await queue.getJobs(['delayed'])).toHaveLength(0);
    const completed = await queue.getJobs(['completed']);
    const skipped = completed.filter((j) => (j.returnvalue as { skipped?: boolean } | null)?.skipped === true);
    expect(skipped.length).toBeGreaterThanOrEqual(2);
    expect(skipped[0]?.returnvalue).toMatchObject({ name: 'slow', reason: 'a run of this source was still in progress' });
    // Only runs that held the lock fetched the feed: at most one per 2.5 s, plus the one running now.
    expect(fetches).toBeLessThanOrEqual(4);
  }, 30_000);
});
