import type { Job } from 'bullmq';
import type { Language } from '../src/model/languages.ts';
import { addFlow, type FlowNode } from '../src/queue/flow.ts';
import { defineJob, type JobDeps } from '../src/queue/job-definition.ts';
import { acquireRunLock, keepRunLock, releaseRunLock } from '../src/queue/run-lock.ts';
import { syncParams } from '../src/runs/options/sync-site.ts';
import { SiteSync, syncReport, type SyncParams } from '../src/runs/sync-site.ts';
import { dedupIdFor, languageJobId, planJobId, resolveSyncPayload, syncRunName, SyncSitePayload, type RunRef } from './sync-payload.ts';
import { LOCK_TTL_MS, syncJobContext } from './sync-run.ts';

/**
 * `sync-site` starts a run for a site pair: under the pair's lock it checks both sites (a site
 * down, a wrong password or no calendar fails the run here, at once) and adds a flow:
 * `sync-finish` (the pair) ← one `sync-language` per language (retire) ← that language's
 * `sync-plan` (jobs/sync-plan.ts), which reads the source and adds one `sync-page` per page of
 * planned events (the writes) under the language while it reads. Any number of workers write the
 * pages while the source is still being read. Job ids derive from this job's, so a retried
 * `sync-site` adds nothing twice; a page retried after its worker died writes only what the
 * ledger does not already hold.
 */
export const syncSiteJob = defineJob({
  name: 'sync-site',
  queue: 'sync',
  payload: SyncSitePayload,
  historyName: syncRunName,
  async process(job, payload, deps, signal) {
    const o = resolveSyncPayload(payload, deps.config);
    const list = syncParams(o, deps.config);
    const runId = `sync-${String(job.id).replace(/[^A-Za-z0-9_-]/g, '-')}`;
    const lockKey = `${deps.prefix}:lock:${dedupIdFor(payload)}`;
    const first = list[0] as SyncParams;
    const base: RunRef = { runId, payload, lockKey, window: { from: first.window.from.toISOString(), to: first.window.to.toISOString() } };
    await acquireRunLock(deps.redis, lockKey, runId, o.name, LOCK_TTL_MS);
    const stop = keepRunLock(deps.redis, lockKey, runId, LOCK_TTL_MS);
    try {
      await checkSites(first, job, deps, { runId, name: o.name }, signal);
      const langs = list.map((p) => p.lang);
      await addFlow(deps, syncFlow(base, langs, new Date(job.timestamp).toISOString()));
      return { runId, finishJobId: `${runId}-finish`, languages: langs.map((lang) => ({ lang })) };
    } catch (err) {
      await releaseRunLock(deps.redis, lockKey, runId);
      throw err;
    } finally {
      stop();
    }
  },
});

/** Both sites, before any job of the run is added: a run that cannot work fails as this job. */
async function checkSites(p: SyncParams, job: Job, deps: JobDeps, run: { runId: string; name: string }, signal?: AbortSignal): Promise<void> {
  const ctx = syncJobContext(deps, job, run.runId, { sync: run.name }, signal);
  const sync = new SiteSync(p, ctx, syncReport(p, ctx, run.runId));
  try {
    await sync.checkSites();
  } finally {
    await sync.close();
  }
}

/** The run's flow: the pair's finish ← one language job each (retire) ← its planner, which adds the page jobs. */
function syncFlow(base: RunRef, langs: Language[], startedAt: string): FlowNode {
  return {
    name: 'sync-finish',
    data: { ...base, langs, startedAt },
    jobId: `${base.runId}-finish`,
    children: langs.map((lang) => ({
      name: 'sync-language',
      data: { ...base, lang },
      jobId: languageJobId(base.runId, lang),
      children: [{ name: 'sync-plan', data: { ...base, lang }, jobId: planJobId(base.runId, lang) }],
    })),
  };
}
