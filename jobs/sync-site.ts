import { FlowProducer, UnrecoverableError, type Job } from 'bullmq';
import { z } from 'zod';
import type { CalsyncConfig } from '../src/config/schema.ts';
import { Language } from '../src/model/languages.ts';
import { bullConnection } from '../src/queue/connection.ts';
import { defineJob, type JobDeps } from '../src/queue/job-definition.ts';
import { acquireRunLock, keepRunLock, releaseRunLock, renewRunLock } from '../src/queue/run-lock.ts';
import { RunFailedError, runContext } from '../src/runs/context.ts';
import { ConfiguredSiteName } from './payload.ts';
import { foldSyncReports, SiteSync, syncReport, type SyncPage, type SyncParams, type SyncPlan } from '../src/runs/sync-site.ts';
import type { ReportJson } from '../src/report/report.ts';
import { SyncOptions, syncOptionsFromConfig, syncParams } from '../src/runs/options/sync-site.ts';

/** Ad-hoc options as a queue may carry them (jobs/payload.ts): both sites declared in the config. */
export const QueuedSync = SyncOptions.extend({ from: ConfiguredSiteName, to: ConfiguredSiteName }).strict();

export const SyncSitePayload = z.union([z.strictObject({ sync: z.string().min(1), dryRun: z.boolean().optional() }), QueuedSync]);

export function resolveSyncPayload(p: z.infer<typeof SyncSitePayload>, config: CalsyncConfig): SyncOptions & { name: string } {
  if ('from' in p) return { ...p, name: `${p.from}->${p.to}` };
  const s = config.syncs.find((x) => x.name === p.sync);
  if (!s) throw new Error(`no sync named "${p.sync}" in the config`);
  return { ...syncOptionsFromConfig(s), dryRun: p.dryRun ?? false, name: s.name };
}

export function dedupIdFor(payload: z.infer<typeof SyncSitePayload>): string {
  return 'from' in payload ? `sync-${payload.from}-${payload.to}`.replace(/[^a-zA-Z0-9-]/g, '-') : `sync-${payload.sync}`;
}

// --- The queue flow: sync-site (plan) → sync-finish ← sync-language (retire) ← sync-page (write) ---

/** Held from planning until sync-finish, renewed by every job of the run; expires if all workers die. */
const LOCK_TTL_MS = 10 * 60_000;
const KEY_TTL_S = 7 * 24 * 3600;
const JOB_OPTS = { attempts: 3, backoff: { type: 'exponential', delay: 2000 } } as const;

const Window = z.strictObject({ from: z.string(), to: z.string() });
const RunRef = z.strictObject({ runId: z.string().regex(/^[A-Za-z0-9_-]+$/), payload: SyncSitePayload, lockKey: z.string(), window: Window });
type RunRef = z.infer<typeof RunRef>;
const PageRef = RunRef.extend({ lang: Language, page: z.number().int().min(0) });
const LanguageRef = RunRef.extend({ lang: Language, pages: z.number().int().min(0) });

const runKey = (deps: JobDeps, runId: string, lang: string, part: string) => `${deps.prefix}:sync:${runId}:${lang}:${part}`;

/** The params of one language, with the window the planner resolved (relative dates must not drift between jobs). */
function paramsOf(ref: RunRef & { lang: Language }, config: CalsyncConfig): SyncParams {
  const p = syncParams(resolveSyncPayload(ref.payload, config), config).find((x) => x.lang === ref.lang);
  if (!p) throw new UnrecoverableError(`language ${ref.lang} is no longer part of this sync`);
  return { ...p, window: { from: new Date(ref.window.from), to: new Date(ref.window.to) } };
}

const ctxOf = (deps: JobDeps, job: Job, runId: string, extra: Record<string, unknown>, signal?: AbortSignal) => runContext(deps, { runId, signal, logFields: { jobId: job.id, ...extra } });

/** Runs `fn` holding (and renewing) the run's lock; a run whose lock was lost keeps going (its writes are idempotent). */
async function underLock<T>(deps: JobDeps, ref: RunRef, fn: () => Promise<T>): Promise<T> {
  await renewRunLock(deps.redis, ref.lockKey, ref.runId, LOCK_TTL_MS);
  const stop = keepRunLock(deps.redis, ref.lockKey, ref.runId, LOCK_TTL_MS);
  try {
    return await fn();
  } finally {
    stop();
  }
}

/**
 * `sync-site` plans a run for a site pair: under the pair's lock it reads each language of the
 * source, resolves terms, venues and organizers on the target, stores pages of planned events in
 * Redis and adds a flow: `sync-finish` (the pair) ← one `sync-language` per language (retire) ←
 * one `sync-page` per page (the event writes), which any number of workers process in parallel.
 * Job ids derive from the planner's, so a retried planner adds nothing twice; a page retried after
 * its worker died writes only what the ledger does not already hold.
 */
export const syncSiteJob = defineJob({
  name: 'sync-site',
  queue: 'sync',
  payload: SyncSitePayload,
  historyName: resolveName,
  async process(job, payload, deps, signal) {
    const o = resolveSyncPayload(payload, deps.config);
    const list = syncParams(o, deps.config);
    const runId = `sync-${String(job.id).replace(/[^A-Za-z0-9_-]/g, '-')}`;
    const lockKey = `${deps.prefix}:lock:${dedupIdFor(payload)}`;
    const first = list[0] as SyncParams;
    const window = { from: first.window.from.toISOString(), to: first.window.to.toISOString() };
    await acquireRunLock(deps.redis, lockKey, runId, o.name, LOCK_TTL_MS);
    const stop = keepRunLock(deps.redis, lockKey, runId, LOCK_TTL_MS);
    try {
      const languages: { lang: Language; pages: number }[] = [];
      for (const p of list) {
        const ctx = ctxOf(deps, job, runId, { sync: o.name, lang: p.lang }, signal);
        const report = syncReport(p, ctx, runId);
        const sync = new SiteSync(p, { ...ctx, onProgress: (x) => job.updateProgress({ ...x, lang: p.lang }) }, report);
        try {
          const plan = await sync.plan((page) => deps.redis.set(runKey(deps, runId, p.lang, `page:${page.index}`), JSON.stringify(page), 'EX', KEY_TTL_S).then(() => undefined));
          await sync.close();
          await deps.redis.set(runKey(deps, runId, p.lang, 'plan'), JSON.stringify({ seen: plan.seen, cancelled: plan.cancelled, report: report.finish() }), 'EX', KEY_TTL_S);
          languages.push({ lang: p.lang, pages: plan.pages });
        } catch (err) {
          await sync.close().catch(() => undefined);
          throw err;
        }
      }
      const base = { runId, payload, lockKey, window };
      const flow = new FlowProducer({ connection: bullConnection(deps.redisUrl), prefix: deps.prefix });
      try {
        await flow.add({
          name: 'sync-finish',
          queueName: 'sync',
          data: { ...base, langs: languages.map((l) => l.lang), startedAt: new Date(job.timestamp).toISOString() },
          opts: { jobId: `${runId}-finish`, ...JOB_OPTS },
          children: languages.map(({ lang, pages }) => ({
            name: 'sync-language',
            queueName: 'sync',
            data: { ...base, lang, pages },
            // A failed child must not leave its parent waiting forever (bullmq #3362): the parent
            // runs anyway, reports the loss, and the lock is released.
            opts: { jobId: `${runId}-${lang}`, ...JOB_OPTS, ignoreDependencyOnFailure: true },
            children: Array.from({ length: pages }, (_, i) => ({
              name: 'sync-page',
              queueName: 'sync',
              data: { ...base, lang, page: i },
              opts: { jobId: `${runId}-${lang}-page-${i}`, ...JOB_OPTS, ignoreDependencyOnFailure: true },
            })),
          })),
        });
      } finally {
        await flow.close();
      }
      return { runId, finishJobId: `${runId}-finish`, languages };
    } catch (err) {
      await releaseRunLock(deps.redis, lockKey, runId);
      throw err;
    } finally {
      stop();
    }
  },
});

export const syncPageJob = defineJob({
  name: 'sync-page',
  part: 'piece',
  queue: 'sync',
  payload: PageRef,
  historyName: (r) => resolveName(r.payload),
  async process(job, ref, deps, signal): Promise<{ report: ReportJson }> {
    return underLock(deps, ref, async () => {
      const raw = await deps.redis.get(runKey(deps, ref.runId, ref.lang, `page:${ref.page}`));
      if (!raw) throw new UnrecoverableError(`page ${ref.page} (${ref.lang}) of sync run ${ref.runId} is no longer in Redis (expired or deleted); enqueue the sync again`);
      const p = paramsOf(ref, deps.config);
      const ctx = ctxOf(deps, job, ref.runId, { lang: ref.lang, page: ref.page }, signal);
      const report = syncReport(p, ctx, ref.runId);
      const sync = new SiteSync(p, ctx, report);
      try {
        await sync.write(JSON.parse(raw) as SyncPage);
      } finally {
        await sync.close();
      }
      return { report: report.finish() };
    });
  },
});

export const syncLanguageJob = defineJob({
  name: 'sync-language',
  part: 'piece',
  queue: 'sync',
  payload: LanguageRef,
  historyName: (r) => resolveName(r.payload),
  async process(job, ref, deps, signal): Promise<{ report: ReportJson }> {
    return underLock(deps, ref, async () => {
      const p = paramsOf(ref, deps.config);
      const ctx = ctxOf(deps, job, ref.runId, { lang: ref.lang }, signal);
      const report = syncReport(p, ctx, ref.runId);
      const planRaw = await deps.redis.get(runKey(deps, ref.runId, ref.lang, 'plan'));
      if (!planRaw) throw new UnrecoverableError(`the plan of sync run ${ref.runId} (${ref.lang}) is no longer in Redis; enqueue the sync again`);
      const plan = JSON.parse(planRaw) as Pick<SyncPlan, 'seen' | 'cancelled'> & { report: ReportJson };
      report.merge(plan.report);
      for (const value of Object.values(await job.getChildrenValues<{ report: ReportJson }>())) report.merge(value.report);
      // Pages that failed every attempt: their events are failed items (and, being in the plan, not retired).
      for (const [key, reason] of Object.entries(await job.getIgnoredChildrenFailures())) {
        const i = Number(/-page-(\d+)$/.exec(key)?.[1]);
        const raw = Number.isInteger(i) ? await deps.redis.get(runKey(deps, ref.runId, ref.lang, `page:${i}`)) : null;
        for (const item of raw ? (JSON.parse(raw) as SyncPage).items : []) report.add({ kind: 'events', slug: item.slug, outcome: 'failed', reason: `page ${i} failed: ${reason}`, origin: item.origin });
        if (!raw) report.warn(`page ${i} failed and its events are unknown: ${reason}`);
      }
      const sync = new SiteSync(p, ctx, report);
      try {
        await sync.retire(plan);
      } finally {
        await sync.close();
      }
      const keys = [runKey(deps, ref.runId, ref.lang, 'plan'), ...Array.from({ length: ref.pages }, (_, i) => runKey(deps, ref.runId, ref.lang, `page:${i}`))];
      await deps.redis.del(...keys);
      return { report: report.finish() };
    });
  },
});

export const syncFinishJob = defineJob({
  name: 'sync-finish',
  part: 'finish',
  queue: 'sync',
  payload: RunRef.extend({ langs: z.array(Language), startedAt: z.string() }),
  historyName: (r) => resolveName(r.payload),
  async process(job, ref, deps): Promise<ReportJson> {
    try {
      const o = resolveSyncPayload(ref.payload, deps.config);
      const values = await job.getChildrenValues<{ report: ReportJson }>();
      const reports = ref.langs.flatMap((l) => Object.entries(values).filter(([k]) => k.endsWith(`:${ref.runId}-${l}`)).map(([, v]) => v.report));
      const failed = Object.entries(await job.getIgnoredChildrenFailures());
      if (failed.length) throw new RunFailedError('sync-language-failed', `sync ${o.name}: ${failed.map(([k, why]) => `${k.split(':').pop()}: ${why}`).join('; ')}`);
      return foldSyncReports(reports, { id: ref.runId, from: o.from, to: o.to, dryRun: o.dryRun, startedAt: ref.startedAt });
    } finally {
      await releaseRunLock(deps.redis, ref.lockKey, ref.runId);
    }
  },
});

function resolveName(p: z.infer<typeof SyncSitePayload>): string {
  return 'from' in p ? `${p.from}->${p.to}` : p.sync;
}
