import type { Job } from 'bullmq';
import type { Language } from '../src/model/languages.ts';
import { addFlow, type FlowNode } from '../src/queue/flow.ts';
import { defineJob, type JobDeps } from '../src/queue/job-definition.ts';
import { acquireRunLock, keepRunLock, releaseRunLock } from '../src/queue/run-lock.ts';
import { syncParams } from '../src/runs/options/sync-site.ts';
import { SiteSync, syncReport, type SyncParams } from '../src/runs/sync-site.ts';
import { dedupIdFor, resolveSyncPayload, syncRunName, SyncSitePayload, type RunRef } from './sync-payload.ts';
import { LOCK_TTL_MS, syncJobContext } from './sync-run.ts';
import { SyncRunStore } from './sync-store.ts';

/**
 * `sync-site` plans a run for a site pair: under the pair's lock it reads each language of the
 * source, resolves terms, venues and organizers on the target, stores pages of planned events in
 * Redis (jobs/sync-store.ts) and adds a flow: `sync-finish` (the pair) ← one `sync-language` per
 * language (retire) ← one `sync-page` per page (the event writes), which any number of workers
 * process in parallel. Job ids derive from the planner's, so a retried planner adds nothing twice;
 * a page retried after its worker died writes only what the ledger does not already hold.
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
      const languages: { lang: Language; pages: number }[] = [];
      for (const p of list) languages.push({ lang: p.lang, pages: await planLanguage(p, job, deps, { runId, name: o.name }, signal) });
      await addFlow(deps, 'sync', syncFlow(base, languages, new Date(job.timestamp).toISOString()));
      return { runId, finishJobId: `${runId}-finish`, languages };
    } catch (err) {
      await releaseRunLock(deps.redis, lockKey, runId);
      throw err;
    } finally {
      stop();
    }
  },
});

/** Plans one language: its pages and its plan go to Redis; returns the number of pages. */
async function planLanguage(p: SyncParams, job: Job, deps: JobDeps, run: { runId: string; name: string }, signal?: AbortSignal): Promise<number> {
  const store = new SyncRunStore(deps.redis, deps.prefix, run.runId);
  const ctx = syncJobContext(deps, job, run.runId, { sync: run.name, lang: p.lang }, signal);
  const report = syncReport(p, ctx, run.runId);
  const sync = new SiteSync(p, { ...ctx, onProgress: (x) => job.updateProgress({ ...x, lang: p.lang }) }, report);
  try {
    const plan = await sync.plan((page) => store.savePage(p.lang, page));
    await sync.close();
    await store.savePlan(p.lang, { seen: plan.seen, cancelled: plan.cancelled, listing: plan.listing, report: report.finish() });
    return plan.pages;
  } catch (err) {
    await sync.close().catch(() => undefined);
    throw err;
  }
}

/** The run's flow: the pair's finish ← one language job each (retire) ← its page jobs (writes). */
function syncFlow(base: RunRef, languages: { lang: Language; pages: number }[], startedAt: string): FlowNode {
  return {
    name: 'sync-finish',
    data: { ...base, langs: languages.map((l) => l.lang), startedAt },
    jobId: `${base.runId}-finish`,
    children: languages.map(({ lang, pages }) => ({
      name: 'sync-language',
      data: { ...base, lang, pages },
      jobId: `${base.runId}-${lang}`,
      children: Array.from({ length: pages }, (_, i) => ({ name: 'sync-page', data: { ...base, lang, page: i }, jobId: `${base.runId}-${lang}-page-${i}` })),
    })),
  };
}
