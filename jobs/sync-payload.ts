import { z } from 'zod';
import type { CalsyncConfig } from '../src/config/schema.ts';
import { Language } from '../src/model/languages.ts';
import { SyncOptions, syncOptionsFromConfig } from '../src/runs/options/sync-site.ts';
import { ConfiguredSiteName } from './payload.ts';
import { UnknownConfigEntryError } from '../src/queue/job-errors.ts';

/** Ad-hoc options as a queue may carry them (jobs/payload.ts): both sites declared in the config. */
export const QueuedSync = SyncOptions.extend({ from: ConfiguredSiteName, to: ConfiguredSiteName }).strict();

/** Payload of `sync-site`: a configured sync by name, or ad-hoc options. */
export const SyncSitePayload = z.union([z.strictObject({ sync: z.string().min(1), dryRun: z.boolean().optional() }), QueuedSync]);
export type SyncSitePayload = z.infer<typeof SyncSitePayload>;

export function resolveSyncPayload(p: SyncSitePayload, config: CalsyncConfig): SyncOptions & { name: string } {
  if ('from' in p) return { ...p, name: `${p.from}->${p.to}` };
  const s = config.syncs.find((x) => x.name === p.sync);
  if (!s) throw new UnknownConfigEntryError(`no sync named "${p.sync}"`);
  return { ...syncOptionsFromConfig(s), dryRun: p.dryRun ?? false, name: s.name };
}

/** One run at a time per site pair: the name of the pair's lock. */
export function dedupIdFor(payload: SyncSitePayload): string {
  return 'from' in payload ? `sync-${payload.from}-${payload.to}`.replace(/[^a-zA-Z0-9-]/g, '-') : `sync-${payload.sync}`;
}

/** The name runs are recorded under in the history. */
export function syncRunName(p: SyncSitePayload): string {
  return 'from' in p ? `${p.from}->${p.to}` : p.sync;
}

// What every job of a sync run carries: sync-site (checks, fans out) → sync-finish ← sync-language
// (retire) ← sync-plan (reads the source) and the sync-page jobs (writes) it adds while it reads.
const Window = z.strictObject({ from: z.string(), to: z.string() });
export const RunRef = z.strictObject({ runId: z.string().regex(/^[A-Za-z0-9_-]+$/), payload: SyncSitePayload, lockKey: z.string(), window: Window });
export type RunRef = z.infer<typeof RunRef>;
export const PageRef = RunRef.extend({ lang: Language, page: z.number().int().min(0) });
export const PlanRef = RunRef.extend({ lang: Language });
// `pages` is optional: a language job added before pages were fanned out while planning carries its page count.
export const LanguageRef = RunRef.extend({ lang: Language, pages: z.number().int().min(0).optional() });
export const FinishRef = RunRef.extend({ langs: z.array(Language), startedAt: z.string() });

/** The job of one language of a run (its retirement), which its planner adds the page jobs under. */
export const languageJobId = (runId: string, lang: Language): string => `${runId}-${lang}`;
export const planJobId = (runId: string, lang: Language): string => `${runId}-${lang}-plan`;
export const pageJobId = (runId: string, lang: Language, page: number): string => `${runId}-${lang}-page-${page}`;

/** The page a page job's id (or its Redis key) names; undefined for the run's other jobs. */
export function pageOfJob(idOrKey: string): number | undefined {
  const m = /-page-(\d+)$/.exec(idOrKey);
  return m ? Number(m[1]) : undefined;
}
