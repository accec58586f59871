import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.ts';
import { JOB_RETRY } from '../../src/queue/names.ts';
import type { ReportJson } from '../../src/report/report.ts';
import { importWorkers, type ImportWorkers } from '../support/import-workers.ts';
import { testPrefix } from '../support/redis.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';

const FEED = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:wait-1@example.org\r\nSUMMARY:Wait\r\nDTSTART:20270301T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n';

/**
 * The other side of test/regressions/scheduled-overlap.test.ts: an enqueued run that finds another
 * run of its source holding the run lock is not skipped but waits (moved to delayed, src/queue/worker.ts
 * whenLocked), without spending an attempt, and runs once the lock is free.
 */
describe('run lock: an enqueued run of a source that is already running waits for it', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let feed: http.Server;
  let fetches = 0;
  let workers: ImportWorkers;
  beforeAll(async () => {
    env = await testSite();
    // Each fetch takes 2.5 s, so the second run starts while the first holds the lock.
    feed = http.createServer((_req, res) => {
      fetches++;
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/calendar' }).end(FEED), 2500);
    });
    await new Promise<void>((r) => feed.listen(0, '127.0.0.1', r));
    const host = `127.0.0.1:${(feed.address() as AddressInfo).port}`;
    process.env.CALSYNC_TEST_WAIT_PW = PASSWORD;
    const config = parseConfig({
      sites: [{ name: 'sb', restRoot: env.sandbox.url, auth: { user: USER, passwordEnv: 'CALSYNC_TEST_WAIT_PW' } }],
      sources: [{ name: 'waits', kind: 'ics', site: 'sb', url: `http://${host}/waits.ics`, allow: [host], window: { from: '2027-01-01', to: '2027-12-31' } }],
      worker: { concurrency: { import: 2 } },
    });
    workers = await importWorkers(config, testPrefix());
  });
  afterAll(async () => {
    await workers.close();
    await new Promise<void>((r) => feed.close(() => r()));
    await env.close();
  });

  it('both runs complete with a report, one after the other, without spending an attempt', async () => {
    const { queue, events } = workers;
    const first = await queue.add('import-ics', { source: 'waits' }, JOB_RETRY.run);
    const second = await queue.add('import-ics', { source: 'waits' }, JOB_RETRY.run);
    const reports = (await Promise.all([first.waitUntilFinished(events, 30_000), second.waitUntilFinished(events, 30_000)])) as ReportJson[];
    // The second reads the unchanged feed after the first wrote it: nothing failed in either.
    for (const r of reports) expect(r).toMatchObject({ run: { kind: 'import-ics' }, counts: { events: { failed: 0 } } });
    expect(reports.map((r) => (r as { skipped?: boolean }).skipped)).toEqual([undefined, undefined]);
    // One of them held the lock while the other waited, so their runs did not overlap.
    const [a, b] = await Promise.all([queue.getJob(first.id!), queue.getJob(second.id!)]);
    const [early, late] = [a!, b!].sort((x, y) => x.finishedOn! - y.finishedOn!);
    expect(late!.processedOn!).toBeGreaterThanOrEqual(early!.finishedOn!);
    // The waiter was started more than once (put back while locked out), yet each spent one attempt.
    expect(Math.max(a!.attemptsStarted, b!.attemptsStarted)).toBeGreaterThan(1);
    expect([a!.attemptsMade, b!.attemptsMade]).toEqual([1, 1]);
    expect(fetches).toBe(2);
  }, 40_000);
});
