import { z } from 'zod';
import { parseWindow } from '../src/config/dates.ts';
import type { CalsyncConfig, IcsSourceConfig } from '../src/config/schema.ts';
import { resolveSite } from '../src/config/sites.ts';
import { Language } from '../src/model/languages.ts';
import { ZoneName } from '../src/model/zone-option.ts';
import { sourceKeyFrom } from '../src/model/identity.ts';
import { defineJob } from '../src/queue/job-definition.ts';
import { withRunLock } from '../src/queue/run-lock.ts';
import { ConfiguredSiteName, QueueLocation } from './payload.ts';
import { runIcsImport, type IcsImportParams } from '../src/runs/import-ics.ts';
import type { ReportJson } from '../src/report/report.ts';
import { runContext } from '../src/runs/context.ts';

/** Ad-hoc import options: the same as the CLI flags (never credentials). */
export const IcsImportOptions = z.object({
  location: z.string().min(1),
  site: z.string().min(1),
  namespace: z.string().optional(),
  source: z.string().optional(),
  lang: Language.default('en'),
  horizonDays: z.number().int().min(1).default(365),
  pastDays: z.number().int().min(0).default(0),
  window: z.string().optional(),
  retire: z.enum(['keep', 'draft', 'trash', 'delete']).default('keep'),
  onEdit: z.enum(['overwrite', 'preserve']).default('overwrite'),
  /** Zone for floating times; absent: the target site's own zone. */
  defaultTimezone: ZoneName.optional(),
  status: z.enum(['publish', 'draft']).default('publish'),
  createTerms: z.boolean().default(true),
  adoptLinked: z.enum(['link', 'overwrite']).default('link'),
  categoriesAs: z.enum(['categories', 'tags']).default('categories'),
  dryRun: z.boolean().default(false),
  forceRetire: z.boolean().default(false),
  maxRetireShare: z.number().min(0).max(1).default(0.5),
  /** Occurrences (and VEVENTs) one file may produce before it is refused (src/sources/ics/normalize.ts). */
  maxOccurrences: z.number().int().min(1).max(10_000_000).optional(),
  allow: z.array(z.string()).default([]),
});
export type IcsImportOptions = z.infer<typeof IcsImportOptions>;

/** Ad-hoc options as a queue may carry them (jobs/payload.ts): no allow list, a configured site, a URL without secrets. */
export const QueuedIcsImport = IcsImportOptions.omit({ allow: true }).extend({ location: QueueLocation, site: ConfiguredSiteName }).strict();

/** Payload of `import-ics`: a configured source by name, or ad-hoc options. */
export const ImportIcsPayload = z.union([z.strictObject({ source: z.string().min(1), dryRun: z.boolean().optional() }), QueuedIcsImport]);
export type ImportIcsPayload = z.infer<typeof ImportIcsPayload>;

function windowOf(o: { window?: string; pastDays: number; horizonDays: number }, now = new Date()) {
  if (o.window) return parseWindow(o.window, now);
  return { from: new Date(now.getTime() - o.pastDays * 86_400_000), to: new Date(now.getTime() + o.horizonDays * 86_400_000) };
}

export function icsParams(o: IcsImportOptions, config?: CalsyncConfig, extra: Partial<IcsImportParams> = {}): IcsImportParams {
  const site = resolveSite(o.site, config, { namespace: o.namespace });
  return {
    location: o.location,
    site,
    sourceKey: o.source ?? sourceKeyFrom(o.location),
    lang: o.lang,
    window: windowOf(o),
    retire: o.retire,
    onEdit: o.onEdit,
    defaultTimezone: o.defaultTimezone,
    status: o.status,
    createTerms: o.createTerms,
    adoptLinked: o.adoptLinked,
    categoriesAs: o.categoriesAs,
    dryRun: o.dryRun,
    forceRetire: o.forceRetire,
    maxRetireShare: o.maxRetireShare,
    ...(o.maxOccurrences !== undefined ? { maxOccurrencesPerFile: o.maxOccurrences } : {}),
    allow: o.allow,
    ...extra,
  };
}

export function configuredIcsOptions(s: IcsSourceConfig): IcsImportOptions {
  return IcsImportOptions.parse({
    location: s.url,
    site: s.site,
    source: s.name,
    lang: s.language,
    horizonDays: s.horizonDays,
    pastDays: s.pastDays,
    retire: s.retire,
    onEdit: s.onEdit,
    defaultTimezone: s.defaultTimezone,
    status: s.status,
    createTerms: s.createTerms,
    adoptLinked: s.adoptLinked,
    categoriesAs: s.categoriesAs,
    maxRetireShare: s.maxRetireShare,
    maxOccurrences: s.maxOccurrences,
    allow: s.allow,
  });
}

export function resolveIcsPayload(payload: ImportIcsPayload, config: CalsyncConfig): IcsImportOptions {
  // Only config sources' allow lists exempt a feed from the SSRF guard.
  if ('location' in payload) return { ...payload, allow: [] };
  const src = config.sources.find((s) => s.name === payload.source);
  if (!src || src.kind !== 'ics') throw new Error(`no ICS source named "${payload.source}" in the config`);
  return { ...configuredIcsOptions(src), dryRun: payload.dryRun ?? false };
}

export const importIcsJob = defineJob({
  name: 'import-ics',
  queue: 'import',
  payload: ImportIcsPayload,
  historyName: (p) => ('location' in p ? (p.source ?? sourceKeyFrom(p.location)) : p.source),
  async process(job, payload, deps, signal): Promise<ReportJson> {
    const opts = resolveIcsPayload(payload, deps.config);
    // Local files are only for the CLI; a configured source may name one (the demo's bundled feeds).
    const configured = !('location' in payload);
    const params = icsParams(opts, deps.config, { allowFiles: configured });
    const key = `${deps.prefix}:lock:import:${params.site.key}:${params.lang}:${params.sourceKey}`;
    return withRunLock(deps.redis, key, String(job.id), `source "${params.sourceKey}"`, () => runIcsImport(params, runContext(deps, {
      runId: job.id,
      signal,
      logFields: { jobId: job.id, source: opts.source, site: opts.site },
      onProgress: (p) => job.updateProgress(p),
    })));
  },
});
