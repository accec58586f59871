import { defineJob } from '../src/queue/job-definition.ts';
import type { ReportJson } from '../src/report/report.ts';
import { PageRef, syncRunName } from './sync-payload.ts';
import { underLock, withPieceSync } from './sync-run.ts';
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
      const report = await withPieceSync(deps, job, ref, { lang: ref.lang, page: ref.page }, signal, (sync) => sync.write(page));
      return { report: report.finish() };
    });
  },
});
