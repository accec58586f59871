import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.ts';
import { RunHistory } from '../../src/queue/history.ts';
import { JOB_RETRY } from '../../src/queue/names.ts';
import { testPrefix, testRedis } from '../support/redis.ts';
import { importWorkers, type ImportWorkers } from '../support/import-workers.ts';
import { USER, testSite } from '../support/site.ts';

/**
 * Found running calsync as a service: a config site whose application password was wrong failed its
 * scheduled import only after three attempts and their backoff, although no retry can succeed
 * until a person fixes the password (the worker read it at start).
 */
describe('regression: a queued import against a site refusing its password was retried before it failed', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let redis: Redis;
  let workers: ImportWorkers;
  let queue: Queue;
  let events: QueueEvents;
  const prefix = testPrefix();
  beforeAll(async () => {
    env = await testSite();
    redis = testRedis();
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-queued-password-'));
    const feed = path.join(dir, 'talks.ics');
    writeFileSync(feed, 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a@x\r\nSUMMARY:A\r\nDTSTART:20270101T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n');
    process.env.CALSYNC_TEST_WRONG_PW = 'not-the-password';
    const config = parseConfig({
      sites: [{ name: 'city', restRoot: env.sandbox.url, auth: { user: USER, passwordEnv: 'CALSYNC_TEST_WRONG_PW' } }],
      sources: [{ name: 'talks', kind: 'ics', site: 'city', url: feed }],
    });
    workers = await importWorkers(config, prefix);
    ({ queue, events } = workers);
  });
  afterAll(async () => {
    await workers.close();
    redis.disconnect();
    await env.close();
  });

  it('fails on its first attempt with the message that names the password variable, as one failed run', async () => {
    expect(JOB_RETRY.run.attempts).toBeGreaterThan(1);
    const job = await queue.add('import-ics', { source: 'talks' }, JOB_RETRY.run);
    await expect(job.waitUntilFinished(events, 30_000)).rejects.toThrow(/refused the credentials .*\$CALSYNC_TEST_WRONG_PW/);
    expect((await queue.getJob(String(job.id)))?.attemptsMade).toBe(1);
    const runs = await new RunHistory(redis, { prefix }).list('talks');
    expect(runs.map((r) => r.status)).toEqual(['failed']);
  });
});
