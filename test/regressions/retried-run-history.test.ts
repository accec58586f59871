import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { JOBS } from '../../jobs/index.ts';
import { parseConfig } from '../../src/config/load.ts';
import { RunHistory } from '../../src/queue/history.ts';
import { defineJob, type JobDefinition } from '../../src/queue/job-definition.ts';
import type { JobKind } from '../../src/queue/names.ts';
import { RunReport } from '../../src/report/report.ts';
import { RunFailedError } from '../../src/runs/context.ts';
import { testPrefix, testRedis } from '../support/redis.ts';
import { importWorkers, type ImportWorkers } from '../support/import-workers.ts';

/** Each attempt fails its own way; the first has written 12 events before the site stopped answering. */
const flaky = defineJob({
  name: 'flaky' as JobKind,
  queue: 'import',
  payload: z.strictObject({ source: z.string() }),
  historyName: (p) => p.source,
  async process(job) {
    await new Promise((r) => setTimeout(r, 50));
    const err = new RunFailedError('site-down', job.attemptsMade === 0 ? 'the site stopped answering after 12 events' : `nothing listens at the site (attempt ${job.attemptsMade + 1})`);
    if (job.attemptsMade === 0) {
      const report = new RunReport({ id: 'r', kind: 'import-ics', source: 'feed', site: 's', language: 'en', dryRun: false });
      for (let i = 0; i < 12; i++) report.add({ kind: 'events', slug: `e${i}`, outcome: 'created' });
      err.report = report.toJSON();
    }
    throw err;
  },
});

/** The first attempt writes 12 events and fails; the second sees them as unchanged, creates 3 more and succeeds. */
const recovering = defineJob({
  name: 'recovering' as JobKind,
  queue: 'import',
  payload: z.strictObject({ source: z.string() }),
  historyName: (p) => p.source,
  async process(job) {
    await new Promise((r) => setTimeout(r, 50));
    const report = new RunReport({ id: 'r', kind: 'import-ics', source: 'feed2', site: 's', language: 'en', dryRun: false });
    if (job.attemptsMade === 0) {
      for (let i = 0; i < 12; i++) report.add({ kind: 'events', slug: `e${i}`, outcome: 'created' });
      const err = new RunFailedError('site-down', 'the site stopped answering after 12 events');
      err.report = report.toJSON();
      throw err;
    }
    for (let i = 0; i < 12; i++) report.add({ kind: 'events', slug: `e${i}`, outcome: 'unchanged' });
    for (let i = 12; i < 15; i++) report.add({ kind: 'events', slug: `e${i}`, outcome: 'created' });
    return report.finish();
  },
});

/**
 * Found running calsync as a service: a run whose first attempt wrote part of a feed before the site
 * went away, and whose retries then failed otherwise, was recorded with the last attempt's error and
 * duration only; what the first attempt met and wrote was in no record.
 */
describe('regression: the history of a retried run kept only its last attempt', () => {
  let redis: Redis;
  let workers: ImportWorkers;
  let queue: Queue;
  let events: QueueEvents;
  const prefix = testPrefix();
  beforeAll(async () => {
    redis = testRedis();
    const config = parseConfig({ history: { pauseAfterFailures: 10 } });
    workers = await importWorkers(config, prefix, { ...JOBS, flaky: flaky as JobDefinition, recovering: recovering as JobDefinition });
    ({ queue, events } = workers);
  });
  afterAll(async () => {
    await workers.close();
    await redis.quit();
  });

  it('the one failed record starts at the first attempt and tells every attempt, with what the first wrote', async () => {
    const queued = Date.now();
    const job = await queue.add('flaky', { source: 'feed' }, { attempts: 3, backoff: { type: 'fixed', delay: 300 } });
    await expect(job.waitUntilFinished(events, 30_000)).rejects.toThrow('nothing listens at the site (attempt 3)');
    const [run, ...more] = await new RunHistory(redis, { prefix }).list('feed');
    expect(more).toHaveLength(0);
    expect(run?.status).toBe('failed');
    expect(run?.error).toMatch(
      /^nothing listens at the site \(attempt 3\); earlier: attempt 1 after \d+\.\d s \(12 created, 0 updated, 0 retired\): the site stopped answering after 12 events; attempt 2 after \d+\.\d s: nothing listens at the site \(attempt 2\)$/,
    );
    // From the first attempt's start: both backoffs (2 × 300 ms) are inside the run's duration.
    expect(Date.parse(run!.startedAt)).toBeLessThan(queued + 1000);
    expect(run!.durationMs).toBeGreaterThanOrEqual(600);
  });

  it('regression: a run that succeeded on a retry was recorded from its last attempt, the earlier writes shown as unchanged', async () => {
    const queued = Date.now();
    const job = await queue.add('recovering', { source: 'feed2' }, { attempts: 3, backoff: { type: 'fixed', delay: 400 } });
    await job.waitUntilFinished(events, 30_000);
    const [run, ...more] = await new RunHistory(redis, { prefix }).list('feed2');
    expect(more).toHaveLength(0);
    expect(run?.status).toBe('ok');
    // What the first attempt created counts as created, once: not also as unchanged.
    expect(run?.counts?.events).toMatchObject({ read: 15, created: 15, updated: 0, unchanged: 0, failed: 0 });
    expect(run?.error).toMatch(/^succeeded on attempt 2; earlier: attempt 1 after \d+\.\d s \(12 created, 0 updated, 0 retired\): the site stopped answering after 12 events$/);
    expect(Date.parse(run!.startedAt)).toBeLessThan(queued + 1000);
    expect(run!.durationMs).toBeGreaterThanOrEqual(400);
  });
});
