import { defineJob } from '../src/queue/job-definition.ts';
import type { ReportJson } from '../src/report/report.ts';
import { SiteSync, syncReport } from '../src/runs/sync-site.ts';
import { PageRef, syncRunName } from './sync-payload.ts';
import { paramsOf, syncJobContext, underLock } from './sync-run.ts';
import { SyncRunStore } from './sync-store.ts';

/** `sync-page`: writes one planned page of a sync run (unchanged events cost no request). */
export const syncPageJob = defineJob({
  name: 'sync-page',
  part: 'piece',
  queue: 'sync',
  payload: PageRef,
  historyName: (r) => syncRunName(r.payload),
  async process(job, ref, deps, signal): Promise<{ report: ReportJson }> {
    return underLock(deps, ref, async () => {
      const page = await new SyncRunStore(deps.redis, deps.prefix, ref.runId).page(ref.lang, ref.page);
      const p = paramsOf(ref, deps.config);
      const ctx = syncJobContext(deps, job, ref.runId, { lang: ref.lang, page: ref.page }, signal);
      const report = syncReport(p, ctx, ref.runId);
      const sync = new SiteSync(p, ctx, report);
      try {
        await sync.write(page);
      } finally {
        await sync.close();
      }
      return { report: report.finish() };
    });
  },
});
