import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { JOBS } from '../../jobs/index.ts';
import { parseConfig } from '../../src/config/load.ts';
import { CalsyncError } from '../../src/errors/calsync-error.ts';
import { UnrecoverableCode, type ErrorCode } from '../../src/errors/codes.ts';
import { RunHistory } from '../../src/queue/history.ts';
import { defineJob, type JobDefinition } from '../../src/queue/job-definition.ts';
import type { JobKind } from '../../src/queue/names.ts';
import { testPrefix, testRedis } from '../support/redis.ts';
import { importWorkers, type ImportWorkers } from '../support/import-workers.ts';


class CodedError extends CalsyncError {
  readonly code: ErrorCode;
  constructor(code: ErrorCode) {
    super(`failed on purpose with ${code}`);
    this.code = code;
  }
}

/** How often each job id reached the processor. */
const calls = new Map<string, number>();

/** A job kind that throws the error code its payload names, under a real worker against a real Redis. */
const failing = defineJob({
  name: 'failing' as JobKind,
  queue: 'import',
  payload: z.strictObject({ code: z.string() }),
  historyName: (p) => `failing-${p.code}`,
  async process(job, p) {
    calls.set(String(job.id), (calls.get(String(job.id)) ?? 0) + 1);
    throw new CodedError(p.code as ErrorCode);
  },
});

describe('the worker ends a job at once on an unrecoverable code (src/errors/codes.ts)', () => {
  let redis: Redis;
  let workers: ImportWorkers;
  let queue: Queue;
  let events: QueueEvents;
  const prefix = testPrefix();

  beforeAll(async () => {
    redis = testRedis();
    const config = parseConfig({ sites: [{ name: 'dead', restRoot: 'http://127.0.0.1:1/wp-json' }], history: { pauseAfterFailures: 10 } });
    workers = await importWorkers(config, prefix, { ...JOBS, failing: failing as JobDefinition });
    ({ queue, events } = workers);
  });
  afterAll(async () => {
    await workers.close();
    await redis.quit();
  });

  const retried = { attempts: 3, backoff: { type: 'fixed', delay: 0 } };

  /** A malformed job, or one naming a source the worker's config lacks, is no run of its source: it stays out of the history (and the auto-pause count). */
  const notARun = new Set<string>(['job-kind-unknown', 'job-payload-invalid', 'config-entry-unknown']);

  it.each(UnrecoverableCode.options)('%s fails the job on its first attempt, with its message, recorded as one failed run (unless the job is malformed)', async (code) => {
    const job = await queue.add('failing', { code }, retried);
    await expect(job.waitUntilFinished(events, 30_000)).rejects.toThrow(`failed on purpose with ${code}`);
    expect(calls.get(String(job.id))).toBe(1);
    expect(await job.getState()).toBe('failed');
    const runs = await new RunHistory(redis, { prefix }).list(`failing-${code}`);
    expect(runs.map((r) => r.status)).toEqual(notARun.has(code) ? [] : ['failed']);
  });

  it('a recoverable code spends every attempt (the control for the table above)', async () => {
    const job = await queue.add('failing', { code: 'fetch-failed' }, retried);
    await expect(job.waitUntilFinished(events, 30_000)).rejects.toThrow('failed on purpose with fetch-failed');
    expect(calls.get(String(job.id))).toBe(3);
  });

  it('a payload its schema refuses ends at once as job-payload-invalid and is no run of the source', async () => {
    const job = await queue.add('import-ics', { source: 'nope', extra: 1 }, retried);
    await expect(job.waitUntilFinished(events, 30_000)).rejects.toThrow(/^invalid import-ics payload: /);
    const after = await queue.getJob(String(job.id));
    expect(after?.attemptsMade).toBe(1);
    expect(await new RunHistory(redis, { prefix }).list('nope')).toEqual([]);
  });

  it('a job kind no worker knows ends at once as job-kind-unknown', async () => {
    const job = await queue.add('no-such-kind', {}, retried);
    await expect(job.waitUntilFinished(events, 30_000)).rejects.toThrow('unknown job kind "no-such-kind"');
    expect((await queue.getJob(String(job.id)))?.attemptsMade).toBe(1);
  });
});
