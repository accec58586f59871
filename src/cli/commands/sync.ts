import type { Command } from 'commander';
import { runSiteSyncAll } from '../../runs/sync-site.ts';
import { SYNC_DEFAULTS, SyncOptions, syncParams } from '../../runs/options/sync-site.ts';
import { formatReport, reportExitCode } from '../../report/report.ts';
import { runInline, type GlobalOptions } from '../runtime.ts';
import { splitList } from '../options.ts';
import { parseOptions } from '../validate.ts';

export function registerSync(program: Command, globals: () => GlobalOptions, setExit: (code: number) => void): void {
  const d = SYNC_DEFAULTS;
  program
    .command('sync')
    .description('Copy one site\'s events, venues, organizers, categories and tags into another, per language')
    .requiredOption('--from <site>', 'source site (config name or REST root)')
    .requiredOption('--to <site>', 'target site (config name or REST root)')
    .option('--from-namespace <ns>', 'namespace of a --from given as a URL')
    .option('--to-namespace <ns>', 'namespace of a --to given as a URL')
    .option('--lang <list>', 'languages: en,fr,… or all', String(d.langs))
    .option('--window <from..to>', 'window of source events', d.window)
    .option('--retire <policy>', 'events gone from the source: keep|draft|trash|delete', d.retire)
    .option('--force-retire', 'retire even past the mass-deletion guard')
    .option('--on-edit <policy>', 'events edited on the target: overwrite|preserve', d.onEdit)
    .option('--adopt-linked <policy>', "venues/organizers on the target that calsync did not create: link (leave their fields) | overwrite", d.adoptLinked)
    .option('--categories <list>', 'only events in these source categories (ids or slugs)', splitList)
    .option('--tags <list>', 'only events with these source tags (ids or slugs)', splitList)
    .option('--dry-run', 'resolve everything, write nothing')
    .option('--json', 'print one JSON report')
    .addHelpText(
      'after',
      `
Each site's credentials come from its config entry (passwordEnv/tokenEnv); a site given as a URL uses
CALSYNC_USER/CALSYNC_PASSWORD (or CALSYNC_TOKEN).

Examples:
  $ calsync --config calsync.config.json sync --from venue-site --to city --lang all --retire trash
  $ calsync sync --from https://a.example/wp-json --from-namespace tribe/events/v1 --to city --dry-run`,
    )
    .action(async (o: Record<string, unknown>) =>
      runInline(globals(), setExit, {
        json: Boolean(o.json),
        label: () => ({ kind: 'sync-site', source: String(o.from), site: String(o.to), language: String(o.lang), dryRun: Boolean(o.dryRun) }),
        options: () => optionsFromFlags(o),
        params: (options, config) => syncParams(options, config),
        run: runSiteSyncAll,
        text: formatReport,
        exitCode: reportExitCode,
      }),
    );
}

function optionsFromFlags(o: Record<string, unknown>): SyncOptions {
  return parseOptions(SyncOptions, {
    from: o.from,
    to: o.to,
    fromNamespace: o.fromNamespace,
    toNamespace: o.toNamespace,
    langs: o.lang === 'all' ? 'all' : String(o.lang).split(','),
    window: o.window,
    retire: o.retire,
    onEdit: o.onEdit,
    adoptLinked: o.adoptLinked,
    categories: o.categories,
    tags: o.tags,
    dryRun: Boolean(o.dryRun),
    forceRetire: Boolean(o.forceRetire),
  }, { langs: '--lang' });
}
