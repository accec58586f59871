import { z } from 'zod';
import { parseWindow } from '../../config/dates.ts';
import type { CalsyncConfig, IcsSourceConfig } from '../../config/schema.ts';
import { assertSiteLanguage, resolveSite } from '../../config/sites.ts';
import { sourceKeyFrom } from '../../model/identity.ts';
import type { IcsImportParams } from '../import-ics.ts';
import { ImportFields, OnEditPolicy, RetirePolicy, RunLanguage, windowSpec } from './common.ts';

/** What an ICS source is configured with, wherever it is given (config source, queue payload, CLI flags). */
export const IcsFields = {
  horizonDays: z.number().int().min(1).max(3660).default(365),
  pastDays: z.number().int().min(0).max(3660).default(0),
  retire: RetirePolicy.default('keep'),
  onEdit: OnEditPolicy.default('overwrite'),
  maxRetireShare: z.number().min(0).max(1).default(0.5),
  categoriesAs: z.enum(['categories', 'tags']).default('categories'),
  /** Occurrences (and VEVENTs) one file may produce before it is refused (src/sources/ics/normalize.ts); default 250,000. */
  maxOccurrences: z.number().int().min(1).max(10_000_000).optional(),
};

/** One ICS import's options: the CLI flags, a queued ad-hoc import, or a config source (never credentials). */
export const IcsImportOptions = z.object({
  location: z.string().min(1),
  site: z.string().min(1),
  namespace: z.string().optional(),
  source: z.string().optional(),
  lang: RunLanguage,
  window: z.string().optional(),
  dryRun: z.boolean().default(false),
  forceRetire: z.boolean().default(false),
  ...ImportFields,
  ...IcsFields,
});
export type IcsImportOptions = z.infer<typeof IcsImportOptions>;

/** The defaults, for the CLI's help text. */
export const ICS_DEFAULTS = IcsImportOptions.parse({ location: '-', site: '-' });

function windowOf(o: { window?: string; pastDays: number; horizonDays: number }, now = new Date()) {
  if (o.window) return parseWindow(o.window, now);
  return { from: new Date(now.getTime() - o.pastDays * 86_400_000), to: new Date(now.getTime() + o.horizonDays * 86_400_000) };
}

export function icsParams(o: IcsImportOptions, config?: CalsyncConfig, extra: Partial<IcsImportParams> = {}): IcsImportParams {
  const site = resolveSite(o.site, config, { namespace: o.namespace });
  assertSiteLanguage(site, o.lang);
  return {
    location: o.location,
    site,
    sourceKey: o.source ?? sourceKeyFrom(o.location),
    keyFromLocation: o.source === undefined,
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
    allowOverlap: o.allowOverlap,
    maxRetireShare: o.maxRetireShare,
    ...(o.maxOccurrences !== undefined ? { maxOccurrencesPerFile: o.maxOccurrences } : {}),
    allow: o.allow,
    ...extra,
  };
}

/** A config source's options: the same fields, under the config's names (`url`, `language`, `name`). */
export function icsOptionsFromSource(s: IcsSourceConfig): IcsImportOptions {
  const { url, site, name, language, kind: _kind, schedule: _schedule, window, ...fields } = s;
  return IcsImportOptions.parse({ ...fields, location: url, site, source: name, lang: language, ...(window ? { window: windowSpec(window) } : {}) });
}
