import type { Job } from 'bullmq';
import { defineJob } from '../src/queue/job-definition.ts';
import type { ReportJson, RunReport } from '../src/report/report.ts';
import { LanguageRef, syncRunName } from './sync-payload.ts';
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
      const report = await withPieceSync(deps, job, ref, { lang: ref.lang }, signal, async (sync) => {
        const plan = await store.plan(ref.lang);
        sync.report.merge(plan.report);
        for (const value of Object.values(await job.getChildrenValues<{ report: ReportJson }>())) sync.report.merge(value.report);
        await reportFailedPages(job, store, ref.lang, sync.report);
        await sync.retire(plan);
      });
      await store.drop(ref.lang, ref.pages);
      return { report: report.finish() };
    });
  },
});

/** Pages that failed every attempt: their events are failed items (and, being in the plan, not retired). */
async function reportFailedPages(job: Job, store: SyncRunStore, lang: string, report: RunReport): Promise<void> {
  for (const [key, reason] of Object.entries(await job.getIgnoredChildrenFailures())) {
    const i = Number(/-page-(\d+)$/.exec(key)?.[1]);
    // A page Redis lost or that reads back corrupted: its events are unknown, said as a warning.
    const page = Number.isInteger(i) ? await store.pageIfAny(lang, i).catch(() => undefined) : undefined;
    for (const item of page?.items ?? []) report.add({ kind: 'events', slug: item.slug, outcome: 'failed', reason: `page ${i} failed: ${reason}`, origin: item.origin });
    if (!page) report.warn(`page ${i} failed and its events are unknown: ${reason}`);
  }
}
