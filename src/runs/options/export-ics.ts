import { z } from 'zod';
import { resolveDateSpec } from '../../config/dates.ts';
import type { CalsyncConfig } from '../../config/schema.ts';
import { assertSiteLanguage, resolveSite } from '../../config/sites.ts';
import { Language } from '../../model/languages.ts';
import type { ExportParams } from '../export-ics.ts';
import { ConfigName, DateSpec } from './common.ts';

/** One export's options: a config export (which adds a schedule) or the CLI's `export ics` flags. */
export const ExportOptions = z.strictObject({
  name: ConfigName,
  site: z.string(),
  languages: z.array(Language).min(1).optional(),
  from: DateSpec.default('-30d'),
  to: DateSpec.default('+365d'),
  categories: z.array(z.union([z.string(), z.number()])).optional(),
  tags: z.array(z.union([z.string(), z.number()])).optional(),
  venue: z.array(z.number()).optional(),
  organizer: z.array(z.number()).optional(),
  featured: z.boolean().optional(),
  search: z.string().optional(),
  status: z.string().optional(),
  outDir: z.string().default('.data/feeds'),
  refreshInterval: z.string().default('PT1H'),
});
export type ExportOptions = z.infer<typeof ExportOptions>;

/** The defaults, for the CLI's help text. */
export const EXPORT_DEFAULTS = ExportOptions.parse({ name: 'events', site: '-' });

/** An export's options → run parameters (window resolved against now). */
export function exportParams(e: ExportOptions, config: CalsyncConfig, now = new Date()): ExportParams {
  const site = resolveSite(e.site, config);
  const languages = e.languages ?? site.languages;
  for (const lang of languages) assertSiteLanguage(site, lang);
  return {
    name: e.name,
    connection: site.connection,
    siteKey: site.key,
    languages,
    window: { from: resolveDateSpec(e.from, now), to: resolveDateSpec(e.to, now, true) },
    filters: { categories: e.categories, tags: e.tags, venue: e.venue, organizer: e.organizer, featured: e.featured, search: e.search, status: e.status },
    outDir: e.outDir,
    refreshInterval: e.refreshInterval,
  };
}
