import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { z } from 'zod';
import { runCsvImport } from '../../runs/import-csv.ts';
import { CSV_DEFAULTS, CsvImportOptions, csvParams } from '../../runs/options/import-csv.ts';
import { reportExitCode } from '../../report/report.ts';
import { reportText } from '../outcome.ts';
import { runInline, type GlobalOptions } from '../runtime.ts';
import { intOption, splitList } from '../options.ts';
import { OptionsError, parseOptions } from '../validate.ts';

const HELP = `
Identity: with --key the column's value; otherwise source + title + start + the row's own zone column,
so editing a row's title or start in the file makes a new event on the next import. Rows without a zone
are read in --default-tz, else the site's own zone (as The Events Calendar's importer does); changing
that zone later moves those events, it does not duplicate them.

Examples:
  $ calsync import csv events.csv --site http://127.0.0.1:8787/wp-json --rejects rejects.csv
  $ calsync import csv venues.csv --kind venues --site city --json
  $ calsync import csv export.csv --site city --date-format DD/MM/YYYY --default-tz Europe/Oslo --dry-run

Exit codes: 0 nothing failed, 2 some rows failed, 1 the run failed as a whole (e.g. ambiguous dates).`;

export function registerImportCsv(importCmd: Command, globals: () => GlobalOptions, setExit: (code: number) => void): void {
  const d = CSV_DEFAULTS;
  importCmd
    .command('csv')
    .description('Import events, venues or organizers from a CSV file: mapped headers, row-level rejects, dry run')
    .argument('<file-or-url>', 'CSV file path or http(s) URL')
    .requiredOption('--site <rest-root-or-name>', 'REST root or a site name from the config')
    .option('--kind <kind>', 'what the rows are: events|venues|organizers', d.kind)
    .option('--namespace <ns>', 'REST namespace (real sites: tribe/events/v1)')
    .option('--map <mapping.json>', 'column → field mapping file ({"Column header or 1-based index": "field"})')
    .option('--key <column>', 'column with a stable id per row (default identity: title + start)')
    .option('--date-format <fmt>', 'date format for non-ISO dates: DD/MM/YYYY, MM/DD/YYYY, D.M.YYYY, …')
    .option('--encoding <enc>', 'auto|utf-8|utf-16le|windows-1252|iso-8859-1…', d.encoding)
    .option('--delimiter <d>', 'auto|,|;|tab|pipe', d.delimiter)
    .option('--default-tz <iana>', "zone for rows without one (default: the site's own zone)")
    .option('--lang <code>', 'site language (ml_language)', d.lang)
    .option('--source <key>', 'source key (default: from the file name)')
    .option('--status <status>', 'post status of new records: publish|draft', d.status)
    .option('--no-create-terms', 'do not create missing categories/tags')
    .option('--adopt-linked <policy>', "venues/organizers on the site that calsync did not create: link (leave their fields) | overwrite", d.adoptLinked)
    .option('--chunk-size <n>', 'rows per chunk', intOption, d.chunkSize)
    .option('--allow <hosts>', 'hosts/CIDRs exempt from the private-address guard', splitList)
    .option('--allow-overlap', "import as a new source although another source already imported these events (a second copy)")
    .option('--dry-run', 'validate and resolve everything, write nothing')
    .option('--rejects <out.csv>', 'write rejected rows (as they were, plus line and reason) here')
    .option('--json', 'print one JSON report')
    .addHelpText('after', HELP)
    .action(async (location: string, o: Record<string, unknown>) =>
      runInline(globals(), setExit, {
        json: Boolean(o.json),
        label: () => ({ kind: 'import-csv', source: String(o.source ?? location), site: String(o.site), language: String(o.lang), dryRun: Boolean(o.dryRun) }),
        options: () => optionsFromFlags(location, o),
        params: (options, config) => csvParams(options, config, { allowFiles: true }),
        run: runCsvImport,
        text: reportText,
        exitCode: reportExitCode,
      }),
    );
}

/** The flags as the run's options (`tab`/`pipe` delimiters, --default-tz, the --map file read). */
function optionsFromFlags(location: string, o: Record<string, unknown>): CsvImportOptions {
  const delimiter = o.delimiter === 'tab' ? '\t' : o.delimiter === 'pipe' ? '|' : o.delimiter;
  const options = parseOptions(CsvImportOptions, {
    location,
    site: o.site,
    kind: o.kind,
    namespace: o.namespace,
    source: o.source,
    lang: o.lang,
    key: o.key,
    dateFormat: o.dateFormat,
    encoding: o.encoding,
    delimiter,
    defaultTimezone: o.defaultTz,
    status: o.status,
    createTerms: o.createTerms !== false,
    adoptLinked: o.adoptLinked,
    allowOverlap: Boolean(o.allowOverlap),
    dryRun: Boolean(o.dryRun),
    chunkSize: o.chunkSize,
    rejects: o.rejects,
    allow: (o.allow as string[] | undefined) ?? [],
  }, { defaultTimezone: '--default-tz' });
  if (o.map) options.map = readMapping(String(o.map));
  return options;
}

/** The --map file: a JSON object of column → field, checked like any other option. */
function readMapping(file: string): Record<string, string> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new OptionsError([`--map: cannot read ${file}: ${(err as Error).message}`]);
  }
  const r = z.record(z.string(), z.string()).safeParse(json);
  if (!r.success) throw new OptionsError([`--map: ${file} must be a JSON object of "column": "field" strings`]);
  return r.data;
}
