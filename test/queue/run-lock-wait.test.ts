import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_RETRY } from '../../src/queue/names.ts';
import type { ReportJson } from '../../src/report/report.ts';
import { slowSourceWorkers } from '../support/import-workers.ts';

/**
 * The other side of test/regressions/scheduled-overlap.test.ts: an enqueued run that finds another
 * run of its source holding the run lock is not skipped but waits (moved to delayed, src/queue/worker.ts
 * whenLocked), without spending an attempt, and runs once the lock is free.
 */
describe('run lock: an enqueued run of a source that is already running waits for it', () => {
  let slow: Awaited<ReturnType<typeof slowSourceWorkers>>;
  // Each fetch takes 2.5 s, so the second run starts while the first holds the lock.
  beforeAll(async () => void (slow = await slowSourceWorkers('waits', { delayMs: 2500, concurrency: 2 })));
  afterAll(() => slow.close());

  it('both runs complete with a report, one after the other, without spending an attempt', async () => {
    const { queue, events } = slow.workers;
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
    expect(slow.fetches()).toBe(2);
  }, 40_000);
});
