import type { Command } from 'commander';
import type { Language } from '../../model/languages.ts';
import { exportSummary } from '../../export/summary.ts';
import { runIcsExport } from '../../runs/export-ics.ts';
import { EXPORT_DEFAULTS, ExportOptions, exportParams } from '../../runs/options/export-ics.ts';
import { runInline, type GlobalOptions } from '../runtime.ts';
import { splitList } from '../options.ts';
import { parseOptions } from '../validate.ts';

export function registerExport(program: Command, globals: () => GlobalOptions, setExit: (code: number) => void): void {
  const exportCmd = program.command('export').description('Export events from a site');
  exportCmd
    .command('ics')
    .description('Render a date window of a site to ICS, one file per language (<out>/<name>.<lang>.ics)')
    .requiredOption('--site <site>', 'REST root or a site name from the config')
    .option('--namespace <ns>', 'REST namespace (real sites: tribe/events/v1)')
    .option('--from <date>', 'window start: YYYY-MM-DD or relative like -30d', EXPORT_DEFAULTS.from)
    .option('--to <date>', 'window end: YYYY-MM-DD or relative like +365d', EXPORT_DEFAULTS.to)
    .option('--lang <list>', "languages: en,fr,… or all (the site's: a config site's languages, else en)", 'en')
    .option('--categories <list>', 'category ids or slugs', splitList)
    .option('--tags <list>', 'tag ids or slugs', splitList)
    .option('--venue <ids>', 'venue ids', splitList)
    .option('--organizer <ids>', 'organizer ids', splitList)
    .option('--featured', 'only featured events')
    .option('--no-featured', 'only events that are not featured')
    .option('--search <text>', 'only events matching the text')
    .option('--status <status>', 'post status (authenticated)')
    .option('--name <feed>', 'feed name', 'events')
    .requiredOption('--out <dir>', 'output directory')
    .option('--json', 'JSON output')
    .addHelpText('after', '\nExamples:\n  $ calsync export ics --site http://127.0.0.1:8787/wp-json --from -30d --to +365d --lang en,fr,de --out feeds/\n  $ calsync export ics --site city --categories music --name music --out /var/www/feeds')
    .action(async (o: Record<string, unknown>) =>
      runInline(globals(), setExit, {
        json: Boolean(o.json),
        label: () => ({ kind: 'export-ics', source: String(o.site), site: String(o.out), language: String(o.lang), dryRun: false }),
        options: () => optionsFromFlags(o),
        params: (e, config) => {
          const params = exportParams(e, config, new Date());
          return o.namespace ? { ...params, connection: { ...params.connection, namespace: o.namespace as string } } : params;
        },
        run: runIcsExport,
        text: exportSummary,
        exitCode: () => 0,
        redis: false,
      }),
    );
}

function optionsFromFlags(o: Record<string, unknown>): ExportOptions {
  // `all` is every language the site has (left to exportParams, as for a config export without
  // languages), not every language calsync knows: a site without them would answer each with the
  // same events, written as feeds labelled fr, de, … that are not.
  const langs = o.lang === 'all' ? undefined : (String(o.lang).split(',') as Language[]);
  const featuredGiven = process.argv.includes('--featured') || process.argv.includes('--no-featured');
  return parseOptions(ExportOptions, {
    name: o.name,
    site: o.site,
    languages: langs,
    from: o.from,
    to: o.to,
    categories: o.categories,
    tags: o.tags,
    venue: (o.venue as string[] | undefined)?.map(Number),
    organizer: (o.organizer as string[] | undefined)?.map(Number),
    ...(featuredGiven ? { featured: Boolean(o.featured) } : {}),
    search: o.search,
    status: o.status,
    outDir: o.out,
  }, { languages: '--lang', outDir: '--out' });
}
