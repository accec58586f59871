import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_RETRY } from '../../src/queue/names.ts';
import { slowSourceWorkers } from '../support/import-workers.ts';

/**
 * Found running calsync as a service: a source scheduled every 30 s whose run took longer queued a
 * run per tick behind it, each polling the run lock every 2-4 s (an info line each time), and then ran
 * them back to back for nothing.
 */
describe('regression: scheduled runs of a source piled up behind a run that outlasted the interval', () => {
  let slow: Awaited<ReturnType<typeof slowSourceWorkers>>;
  let queue: Queue;
  beforeAll(async () => {
    // Every fetch of the feed takes 2.5 s: longer than the schedule's 1 s interval.
    slow = await slowSourceWorkers('slow', { delayMs: 2500, concurrency: 4 });
    queue = slow.workers.queue;
  });
  afterAll(async () => {
    await queue.removeJobScheduler('slow-every-second').catch(() => undefined);
    await slow.close();
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
    expect(slow.fetches()).toBeLessThanOrEqual(4);
  }, 30_000);
});
