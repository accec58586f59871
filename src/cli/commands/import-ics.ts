import type { Command } from 'commander';
import { runIcsImport } from '../../runs/import-ics.ts';
import { ICS_DEFAULTS, IcsImportOptions, icsParams } from '../../runs/options/import-ics.ts';
import { formatReport, reportExitCode } from '../../report/report.ts';
import { runInline, type GlobalOptions } from '../runtime.ts';
import { intOption, splitList } from '../options.ts';
import { parseOptions } from '../validate.ts';

const HELP = `
Credentials come from CALSYNC_USER + CALSYNC_PASSWORD (or CALSYNC_TOKEN), or the config's site entry; never from a flag.

Examples:
  $ calsync import ics ./holidays.ics --site http://127.0.0.1:8787/wp-json --window 2024-01-01..2024-12-31
  $ calsync import ics webcal://example.org/cal.ics --site city --retire trash --json
  $ calsync import ics https://example.org/feed.ics --site https://events.example.org/wp-json --namespace tribe/events/v1 --dry-run

Exit codes: 0 nothing failed, 2 some items failed, 1 the run failed as a whole.`;

export function registerImportIcs(importCmd: Command, globals: () => GlobalOptions, setExit: (code: number) => void): void {
  const d = ICS_DEFAULTS;
  importCmd
    .command('ics')
    .description('Import an iCal/ICS feed (URL or file) into a site: expand recurrences, upsert by slug, skip unchanged, retire what vanished')
    .argument('<file-or-url>', 'ICS file path, or http(s)/webcal URL')
    .requiredOption('--site <rest-root-or-name>', 'REST root (e.g. http://127.0.0.1:8787/wp-json) or a site name from the config')
    .option('--namespace <ns>', 'REST namespace (real sites: tribe/events/v1)')
    .option('--source <key>', 'source key (default: derived from the URL or file name)')
    .option('--lang <code>', 'site language (ml_language)', d.lang)
    .option('--horizon-days <n>', 'expand recurrences this many days ahead', intOption, d.horizonDays)
    .option('--max-occurrences <n>', 'refuse a file that expands to more occurrences than this (default 250000)', intOption)
    .option('--past-days <n>', 'and this many days back', intOption, d.pastDays)
    .option('--window <from..to>', 'explicit window instead, e.g. 2024-01-01..2024-12-31 or -30d..+365d')
    .option('--retire <policy>', 'what to do with events that vanished from the feed: keep|draft|trash|delete', d.retire)
    .option('--force-retire', 'retire even when more than the guard share (50%) vanished; accept regenerated UIDs')
    .option('--allow-overlap', "import as a new source although another source already imported this feed's events (a second copy)")
    .option('--on-edit <policy>', 'events edited on the site since calsync wrote them: overwrite|preserve', d.onEdit)
    .option('--default-tz <iana>', "zone for floating times when the feed names none (default: the site's own zone)")
    .option('--status <status>', 'post status of new events: publish|draft', d.status)
    .option('--create-terms', 'create missing categories/tags (default)')
    .option('--no-create-terms', 'do not create missing categories/tags')
    .option('--adopt-linked <policy>', "venues/organizers on the site that calsync did not create: link (leave their fields) | overwrite", d.adoptLinked)
    .option('--categories-as <kind>', 'map CATEGORIES to categories|tags', d.categoriesAs)
    .option('--allow <hosts>', 'hosts/CIDRs exempt from the private-address guard (comma list)', splitList)
    .option('--dry-run', 'validate and resolve everything, write nothing')
    .option('--json', 'print one JSON report')
    .addHelpText('after', HELP)
    .action(async (location: string, o: Record<string, unknown>) =>
      runInline(globals(), setExit, {
        json: Boolean(o.json),
        label: () => ({ kind: 'import-ics', source: String(o.source ?? location), site: String(o.site), language: String(o.lang), dryRun: Boolean(o.dryRun) }),
        options: () => optionsFromFlags(location, o),
        params: (options, config) => icsParams(options, config, { allowFiles: true }),
        run: runIcsImport,
        text: formatReport,
        exitCode: reportExitCode,
      }),
    );
}

/** The flags as the run's options (their names differ here and there: --default-tz). */
function optionsFromFlags(location: string, o: Record<string, unknown>): IcsImportOptions {
  return parseOptions(IcsImportOptions, {
    location,
    site: o.site,
    namespace: o.namespace,
    source: o.source,
    lang: o.lang,
    horizonDays: o.horizonDays,
    maxOccurrences: o.maxOccurrences,
    pastDays: o.pastDays,
    window: o.window,
    retire: o.retire,
    onEdit: o.onEdit,
    defaultTimezone: o.defaultTz,
    status: o.status,
    createTerms: o.createTerms !== false,
    adoptLinked: o.adoptLinked,
    categoriesAs: o.categoriesAs,
    dryRun: Boolean(o.dryRun),
    forceRetire: Boolean(o.forceRetire),
    allowOverlap: Boolean(o.allowOverlap),
    allow: (o.allow as string[] | undefined) ?? [],
  }, { defaultTimezone: '--default-tz' });
}
