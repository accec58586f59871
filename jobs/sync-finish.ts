import { defineJob } from '../src/queue/job-definition.ts';
import { releaseRunLock } from '../src/queue/run-lock.ts';
import type { ReportJson } from '../src/report/report.ts';
import { RunFailedError } from '../src/runs/context.ts';
import { syncPairReport } from '../src/runs/sync-site.ts';
import { FinishRef, resolveSyncPayload, syncRunName } from './sync-payload.ts';

/** `sync-finish`: the pair's report, folded from its languages'; releases the pair's lock whatever happened. */
export const syncFinishJob = defineJob({
  name: 'sync-finish',
  part: 'finish',
  queue: 'sync',
  payload: FinishRef,
  historyName: (r) => syncRunName(r.payload),
  async process(job, ref, deps): Promise<ReportJson> {
    try {
      const o = resolveSyncPayload(ref.payload, deps.config);
      const values = await job.getChildrenValues<{ report: ReportJson }>();
      const reports = ref.langs.flatMap((l) => Object.entries(values).filter(([k]) => k.endsWith(`:${ref.runId}-${l}`)).map(([, v]) => v.report));
      const failed = Object.entries(await job.getIgnoredChildrenFailures());
      if (failed.length) throw new RunFailedError('sync-language-failed', `sync ${o.name}: ${failed.map(([k, why]) => `${k.split(':').pop()}: ${why}`).join('; ')}`);
      return syncPairReport(reports, { id: ref.runId, from: o.from, to: o.to, dryRun: o.dryRun, startedAt: ref.startedAt });
    } finally {
      await releaseRunLock(deps.redis, ref.lockKey, ref.runId);
    }
  },
});
