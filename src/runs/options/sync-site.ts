import { z } from 'zod';
import { parseWindow, resolveDateSpec } from '../../config/dates.ts';
import type { CalsyncConfig, SyncConfig } from '../../config/schema.ts';
import { assertSiteLanguage, resolveSite, type ResolvedSite } from '../../config/sites.ts';
import { CalsyncError } from '../../errors/calsync-error.ts';
import { Language, LANGUAGES } from '../../model/languages.ts';
import type { SyncParams } from '../sync-site.ts';
import { AdoptLinkedPolicy, OnEditPolicy, RetirePolicy, windowSpec } from './common.ts';

/** The window of source events a sync copies unless told otherwise. */
export const SYNC_WINDOW = { from: '-30d', to: '+365d' } as const;

/** What a sync is configured with, wherever it is given (config sync, queue payload, CLI flags). */
export const SyncFields = {
  retire: RetirePolicy.default('keep'),
  onEdit: OnEditPolicy.default('overwrite'),
  adoptLinked: AdoptLinkedPolicy.default('link'),
};

export const SyncOptions = z.object({
  from: z.string().min(1),
  to: z.string().min(1),
  fromNamespace: z.string().optional(),
  toNamespace: z.string().optional(),
  langs: z.union([z.literal('all'), z.array(Language).min(1)]).default(['en']),
  window: z.string().default(`${SYNC_WINDOW.from}..${SYNC_WINDOW.to}`),
  categories: z.array(z.union([z.string(), z.number()])).optional(),
  tags: z.array(z.union([z.string(), z.number()])).optional(),
  dryRun: z.boolean().default(false),
  forceRetire: z.boolean().default(false),
  ...SyncFields,
});
export type SyncOptions = z.infer<typeof SyncOptions>;

/** The defaults, for the CLI's help text. */
export const SYNC_DEFAULTS = SyncOptions.parse({ from: '-', to: '-' });

/** A sync from a site into itself: every event would be copied beside itself as `<site>-<slug>`. */
export class SyncSameSiteError extends CalsyncError {
  override name = 'SyncSameSiteError';
  readonly code = 'sync-same-site';
  constructor(from: ResolvedSite, to: ResolvedSite) {
    super(`--from ${from.name} and --to ${to.name} are the same site (${to.connection.restRoot}, ${to.connection.namespace ?? 'calendar/events/v1'}): a sync copies one site into another; give another --to`);
  }
}

/** One SyncParams per language: `all` means the languages both sites declare. */
export function syncParams(o: SyncOptions, config?: CalsyncConfig): SyncParams[] {
  // A site given by URL is named by these options in what a failed preflight says to fix.
  const from = resolveSite(o.from, config, { namespace: o.fromNamespace, flags: { site: '--from', namespace: '--from-namespace' } });
  const to = resolveSite(o.to, config, { namespace: o.toNamespace, flags: { site: '--to', namespace: '--to-namespace' } });
  // Both names of one site (a config name, its REST root and namespace) are among each one's keys.
  if (to.key === from.key || from.aliases?.includes(to.key)) throw new SyncSameSiteError(from, to);
  const langs = o.langs === 'all' ? LANGUAGES.filter((l) => from.languages.includes(l) && to.languages.includes(l)) : o.langs;
  for (const lang of langs) for (const site of [from, to]) assertSiteLanguage(site, lang);
  const window = /\.\./.test(o.window) ? parseWindow(o.window) : { from: resolveDateSpec(SYNC_WINDOW.from), to: resolveDateSpec(SYNC_WINDOW.to) };
  return (langs.length ? langs : ['en' as const]).map((lang) => ({
    from,
    to,
    lang,
    window,
    retire: o.retire,
    onEdit: o.onEdit,
    adoptLinked: o.adoptLinked,
    categories: o.categories,
    tags: o.tags,
    dryRun: o.dryRun,
    forceRetire: o.forceRetire,
  }));
}

/** A config sync's options: no `languages` there means every language both sites declare. */
export function syncOptionsFromConfig(s: SyncConfig): SyncOptions {
  return SyncOptions.parse({ from: s.from, to: s.to, langs: s.languages ?? 'all', window: windowSpec(s.window), retire: s.retire, onEdit: s.onEdit, adoptLinked: s.adoptLinked });
}
