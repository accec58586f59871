import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { defineJob } from '../src/queue/job-definition.ts';
import type { ReportJson } from '../src/report/report.ts';
import type { SiteSync } from '../src/runs/sync-site.ts';
import type { Language } from '../src/model/languages.ts';
import { RunFailedError } from '../src/runs/context.ts';
import { jobMark } from '../src/write/job-mark.ts';
import { LanguageRef, pageOfJob, planJobId, syncRunName } from './sync-payload.ts';
import { underLock, withPieceSync } from './sync-run.ts';
import { SyncRunStore } from './sync-store.ts';

/** `sync-language`: once a language's pages are written, folds their reports and retires what the source no longer has. */
export const syncLanguageJob = defineJob({
  name: 'sync-language',
  part: 'piece',
  queue: 'sync',
  payload: LanguageRef,
  historyName: (r) => syncRunName(r.payload),
  async process(job, ref, deps, signal): Promise<{ report: ReportJson }> {
    return underLock(deps, ref, async () => {
      const store = new SyncRunStore(deps.redis, deps.prefix, ref.runId);
      await throwIfPlanFailed(job, ref);
      const plan = await store.plan(ref.lang);
      const report = await withPieceSync(deps, job, ref, { lang: ref.lang }, signal, async (sync) => {
        sync.report.merge(plan.report);
        for (const [key, value] of Object.entries(await job.getChildrenValues<{ report: ReportJson }>())) if (pageOfJob(key) !== undefined) sync.report.merge(value.report);
        await reportFailedPages(deps.redis, job, store, ref.lang, sync);
        await sync.retire(plan);
      });
      await store.drop(ref.lang, plan.pages ?? Array.from({ length: ref.pages ?? 0 }, (_, i) => i));
      return { report: report.finish() };
    });
  },
});

/**
 * The language's planner failed every attempt: the source was not read whole, so nothing may be
 * retired; the run fails with the planner's reason (the pages it added were written).
 */
async function throwIfPlanFailed(job: Job, ref: { runId: string; lang: Language }): Promise<void> {
  const failed = Object.entries(await job.getIgnoredChildrenFailures()).find(([key]) => key.endsWith(`:${planJobId(ref.runId, ref.lang)}`));
  if (failed) throw new RunFailedError('sync-plan-failed', `reading the source (${ref.lang}) failed: ${failed[1]}`);
}

/**
 * Pages that failed every attempt: their events are reported as the target holds them (failed
 * unless written; SiteWriter.reportUnwritten), and, being in the plan, not retired.
 */
async function reportFailedPages(redis: Redis, job: Job, store: SyncRunStore, lang: string, sync: SiteSync): Promise<void> {
  for (const [key, reason] of Object.entries(await job.getIgnoredChildrenFailures())) {
    const i = pageOfJob(key);
    if (i === undefined) continue;
    // A page Redis lost or that reads back corrupted: its events are unknown, said as a warning.
    const page = await store.pageIfAny(lang, i).catch(() => undefined);
    if (!page) {
      sync.report.warn(`page ${i} failed and its events are unknown: ${reason}`);
      continue;
    }
    await sync.writer.reportUnwritten(page.items, `page ${i} failed: ${reason}`, await pageMark(redis, job, key));
  }
}

/**
 * The failed page job's mark (src/write/job-mark.ts), which its writes carry: from the job's hash
 * (`key` is its Redis key), while BullMQ keeps it.
 */
async function pageMark(redis: Redis, job: Job, key: string): Promise<string | undefined> {
  const timestamp = Number(await redis.hget(key, 'timestamp').catch(() => null));
  if (!Number.isFinite(timestamp) || timestamp <= 0) return undefined;
  return jobMark({ queueName: job.queueName, id: key.slice(key.lastIndexOf(':') + 1), timestamp });
}
