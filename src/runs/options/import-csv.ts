import { z } from 'zod';
import type { CalsyncConfig, CsvSourceConfig } from '../../config/schema.ts';
import { assertSiteLanguage, resolveSite } from '../../config/sites.ts';
import { sourceKeyFrom } from '../../model/identity.ts';
import type { CsvImportParams } from '../import-csv.ts';
import { ImportFields, RunLanguage } from './common.ts';

export const CsvKind = z.enum(['events', 'venues', 'organizers']);

/** What a CSV source is configured with, wherever it is given (config source, queue payload, CLI flags). */
export const CsvFields = {
  map: z.record(z.string(), z.string()).optional(),
  key: z.string().optional(),
  dateFormat: z.string().optional(),
  encoding: z.string().default('auto'),
  delimiter: z.enum(['auto', ',', ';', '\t', '|']).default('auto'),
  chunkSize: z.number().int().min(1).max(10_000).default(500),
};

/** One CSV import's options: the CLI flags, a queued ad-hoc import, or a config source. */
export const CsvImportOptions = z.object({
  location: z.string().min(1),
  site: z.string().min(1),
  kind: CsvKind.default('events'),
  namespace: z.string().optional(),
  source: z.string().optional(),
  lang: RunLanguage,
  dryRun: z.boolean().default(false),
  rejects: z.string().optional(),
  ...ImportFields,
  ...CsvFields,
});
export type CsvImportOptions = z.infer<typeof CsvImportOptions>;

/** The defaults, for the CLI's help text. */
export const CSV_DEFAULTS = CsvImportOptions.parse({ location: '-', site: '-' });

export function csvParams(o: CsvImportOptions, config?: CalsyncConfig, extra: Partial<CsvImportParams> = {}): CsvImportParams {
  const site = resolveSite(o.site, config, { namespace: o.namespace });
  assertSiteLanguage(site, o.lang);
  return {
    location: o.location,
    site,
    kind: o.kind,
    sourceKey: o.source ?? sourceKeyFrom(o.location),
    keyFromLocation: o.source === undefined,
    lang: o.lang,
    mapping: o.map,
    key: o.key,
    dateFormat: o.dateFormat,
    encoding: o.encoding,
    delimiter: o.delimiter,
    defaultTimezone: o.defaultTimezone,
    status: o.status,
    createTerms: o.createTerms,
    adoptLinked: o.adoptLinked,
    allowOverlap: o.allowOverlap,
    dryRun: o.dryRun,
    chunkSize: o.chunkSize,
    rejectsPath: o.rejects,
    allow: o.allow,
    ...extra,
  };
}

/** A config source's options: the same fields, under the config's names (`url`, `language`, `csvKind`, `name`). */
export function csvOptionsFromSource(s: CsvSourceConfig): CsvImportOptions {
  const { url, site, name, language, csvKind, kind: _kind, schedule: _schedule, ...fields } = s;
  return CsvImportOptions.parse({ ...fields, location: url, site, kind: csvKind, source: name, lang: language });
}
