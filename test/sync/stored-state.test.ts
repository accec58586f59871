import type { Job } from 'bullmq';
import { isUnrecoverableCode } from '../../src/errors/codes.ts';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncPageJob } from '../../jobs/sync-page.ts';
import { SyncRunStore } from '../../jobs/sync-store.ts';
import { parseConfig } from '../../src/config/load.ts';
import type { JobDeps } from '../../src/queue/job-definition.ts';
import { StoredStateError } from '../../src/queue/stored.ts';
import { RunReport } from '../../src/report/report.ts';
import { createLogger } from '../../src/util/log.ts';
import { testPrefix, testRedis } from '../support/redis.ts';

/** Sync pages and plans are read back from Redis by a schema: a corrupted or foreign value is a typed error. */
describe('a sync run\'s pages and plans in Redis', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = testRedis();
  });
  afterAll(async () => {
    await redis.quit();
  });

  const planned = { slug: 'a-1', origin: { source: 'a', ref: '1' }, body: { title: 'T', start_date: '2027-01-01 10:00:00', end_date: '2027-01-01 11:00:00', status: 'publish', categories: [] }, fp: 'f', notes: [] };

  it('round-trips what the planner stored, fields the schema does not name included', async () => {
    const store = new SyncRunStore(redis, testPrefix(), 'run-1');
    const page = { index: 0, items: [planned, { slug: 'a-2', origin: { source: 'a', ref: '2' }, untouched: 12 }] };
    await store.savePage('en', page as never);
    expect(await store.page('en', 0)).toEqual(page);
    const report = new RunReport({ id: 'run-1', kind: 'sync-site', source: 'a', site: 'b', language: 'en', dryRun: false }).finish();
    await store.savePlan('en', { seen: ['a-1'], cancelled: [], report });
    expect(await store.plan('en')).toEqual({ seen: ['a-1'], cancelled: [], report });
  });

  it('regression: a corrupted or foreign page in Redis crashed deep inside the writer instead of failing with a clear error', async () => {
    const prefix = testPrefix();
    const store = new SyncRunStore(redis, prefix, 'run-2');
    const key = (part: string) => `${prefix}:sync:run-2:en:${part}`;
    await redis.set(key('page:0'), '{"index":0,"items":[{"slug":');
    await redis.set(key('page:1'), JSON.stringify({ index: 1, items: [{ ...planned, body: 'not a body' }] }));
    await redis.set(key('plan'), JSON.stringify({ seen: 'everything', cancelled: [] }));
    for (const [read, what] of [[() => store.page('en', 0), 'not JSON'], [() => store.page('en', 1), 'items.0'], [() => store.plan('en'), 'seen']] as const) {
      const err = await read().then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(StoredStateError);
      expect((err as StoredStateError).code).toBe('run-state-invalid');
      // The worker fails the job at once on this code (no retry can repair what Redis holds).
      expect(isUnrecoverableCode((err as StoredStateError).code)).toBe(true);
      expect((err as Error).message).toContain(what);
      expect((err as Error).message).toContain('enqueue the run again');
    }
    const missing = await store.page('en', 9).then(() => undefined, (e: unknown) => e);
    expect(missing).toBeInstanceOf(StoredStateError);
    expect((missing as StoredStateError).code).toBe('run-state-missing');
  });

  it('a sync-page job given a foreign page fails at once (unrecoverable), before writing anything', async () => {
    const prefix = testPrefix();
    await redis.set(`${prefix}:sync:run-3:en:page:0`, JSON.stringify({ index: 0, items: [{ slug: 5 }] }));
    const deps = { config: parseConfig({}), redis, prefix, log: createLogger({ level: 'silent' }), limiterFor: () => undefined, onRequest: () => undefined } as unknown as JobDeps;
    const ref = { runId: 'run-3', payload: { sync: 'copy' }, lockKey: `${prefix}:lock:sync-copy`, window: { from: '2027-01-01T00:00:00Z', to: '2027-12-31T00:00:00Z' }, lang: 'en' as const, page: 0 };
    const job = { id: 'run-3-en-page-0' } as unknown as Job;
    await expect(syncPageJob.process(job, ref, deps)).rejects.toBeInstanceOf(StoredStateError);
  });
});
