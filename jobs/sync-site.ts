import { z } from 'zod';
import { parseWindow, resolveDateSpec } from '../src/config/dates.ts';
import type { CalsyncConfig } from '../src/config/schema.ts';
import { resolveSite } from '../src/config/sites.ts';
import { Language, LANGUAGES } from '../src/model/languages.ts';
import { defineJob } from '../src/queue/job-definition.ts';
import { withRunLock } from '../src/queue/run-lock.ts';
import { runSiteSync, type SyncParams } from '../src/runs/sync-site.ts';
import { RunReport, type ReportJson } from '../src/sync/report.ts';

export const SyncOptions = z.object({
  from: z.string().min(1),
  to: z.string().min(1),
  fromNamespace: z.string().optional(),
  toNamespace: z.string().optional(),
  langs: z.union([z.literal('all'), z.array(Language).min(1)]).default(['en']),
  window: z.string().default('-30d..+365d'),
  retire: z.enum(['keep', 'draft', 'trash', 'delete']).default('keep'),
  onEdit: z.enum(['overwrite', 'preserve']).default('overwrite'),
  categories: z.array(z.union([z.string(), z.number()])).optional(),
  tags: z.array(z.union([z.string(), z.number()])).optional(),
  dryRun: z.boolean().default(false),
  forceRetire: z.boolean().default(false),
});
export type SyncOptions = z.infer<typeof SyncOptions>;

export const SyncSitePayload = z.union([z.strictObject({ sync: z.string().min(1), dryRun: z.boolean().optional() }), SyncOptions]);

export function resolveSyncPayload(p: z.infer<typeof SyncSitePayload>, config: CalsyncConfig): SyncOptions & { name: string } {
  if ('from' in p) return { ...p, name: `${p.from}->${p.to}` };
  const s = config.syncs.find((x) => x.name === p.sync);
  if (!s) throw new Error(`no sync named "${p.sync}" in the config`);
  return {
    ...SyncOptions.parse({ from: s.from, to: s.to, langs: s.languages ?? 'all', window: `${s.window.from}..${s.window.to}`, retire: s.retire, onEdit: s.onEdit, dryRun: p.dryRun ?? false }),
    name: s.name,
  };
}

/** One SyncParams per language: `all` means the languages both sites declare. */
export function syncParams(o: SyncOptions, config?: CalsyncConfig): SyncParams[] {
  const from = resolveSite(o.from, config, { namespace: o.fromNamespace });
  const to = resolveSite(o.to, config, { namespace: o.toNamespace });
  const langs = o.langs === 'all' ? LANGUAGES.filter((l) => from.languages.includes(l) && to.languages.includes(l)) : o.langs;
  const window = /\.\./.test(o.window) ? parseWindow(o.window) : { from: resolveDateSpec('-30d'), to: resolveDateSpec('+365d') };
  return (langs.length ? langs : ['en' as const]).map((lang) => ({
    from,
    to,
    lang,
    window,
    retire: o.retire,
    onEdit: o.onEdit,
    categories: o.categories,
    tags: o.tags,
    dryRun: o.dryRun,
    forceRetire: o.forceRetire,
  }));
}

/** Runs every language of a sync and folds the per-language reports into one. */
export async function runSyncAll(list: SyncParams[], run: (p: SyncParams) => Promise<ReportJson>): Promise<ReportJson> {
  if (list.length === 1) return run(list[0] as SyncParams);
  const first = list[0] as SyncParams;
  const total = new RunReport({ id: `sync-${Date.now()}`, kind: 'sync-site', source: first.from.name, site: first.to.name, language: list.map((p) => p.lang).join(','), dryRun: first.dryRun });
  let retire: ReportJson['retire'];
  for (const p of list) {
    const r = await run(p);
    total.merge(r);
    if (r.retire) retire = retire ? { ...retire, candidates: retire.candidates + r.retire.candidates, retired: retire.retired + r.retire.retired, failed: retire.failed + r.retire.failed, refused: retire.refused || r.retire.refused, reason: retire.reason ?? r.retire.reason } : r.retire;
  }
  if (retire) total.retire = retire;
  return total.finish();
}

/**
 * `sync-site`: one job per site pair (all its languages). A Redis lock per pair (see
 * `dedupIdFor`) keeps two syncs of the same pair from running at once.
 */
export const syncSiteJob = defineJob({
  name: 'sync-site',
  queue: 'sync',
  payload: SyncSitePayload,
  historyName: (p) => ('from' in p ? `${p.from}->${p.to}` : p.sync),
  async process(job, payload, deps, signal): Promise<ReportJson> {
    const o = resolveSyncPayload(payload, deps.config);
    // A run at a time per pair: a scheduled run and a manual one must not interleave their writes.
    return withRunLock(deps.redis, `${deps.prefix}:lock:${dedupIdFor(payload)}`, String(job.id), o.name, () =>
      runSyncAll(syncParams(o, deps.config), (p) =>
        runSiteSync(p, { redis: deps.redis, prefix: deps.prefix, log: deps.log.child({ jobId: job.id, sync: o.name, lang: p.lang }), signal, runId: job.id, limiterFor: deps.limiterFor, onRequest: deps.onRequest, onProgress: (x) => job.updateProgress({ ...x, lang: p.lang }) }),
      ),
    );
  },
});

export function dedupIdFor(payload: z.infer<typeof SyncSitePayload>): string {
  return 'from' in payload ? `sync-${payload.from}-${payload.to}`.replace(/[^a-zA-Z0-9-]/g, '-') : `sync-${payload.sync}`;
}
