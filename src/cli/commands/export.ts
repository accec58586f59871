import type { Command } from 'commander';
import { ExportConfig } from '../../config/schema.ts';
import { exportParams } from '../../../jobs/export-ics.ts';
import { runIcsExport } from '../../export/index.ts';
import { LANGUAGES, type Language } from '../../model/languages.ts';
import { ProgressLine } from '../progress.ts';
import { loadCliConfig, type GlobalOptions } from '../runtime.ts';
import { splitList } from '../options.ts';
import { withJsonFailure } from '../outcome.ts';
import { parseOptions } from '../validate.ts';

export function registerExport(program: Command, globals: () => GlobalOptions, setExit: (code: number) => void): void {
  const exportCmd = program.command('export').description('Export events from a site');
  exportCmd
    .command('ics')
    .description('Render a date window of a site to ICS, one file per language (<out>/<name>.<lang>.ics)')
    .requiredOption('--site <site>', 'REST root or a site name from the config')
    .option('--namespace <ns>', 'REST namespace (real sites: tribe/events/v1)')
    .option('--from <date>', 'window start: YYYY-MM-DD or relative like -30d', '-30d')
    .option('--to <date>', 'window end: YYYY-MM-DD or relative like +365d', '+365d')
    .option('--lang <list>', 'languages: en,fr,… or all', 'en')
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
    .addHelpText('after', '\nExamples:\n  $ calsync export ics --site http://127.0.0.1:8787/wp-json --from -30d --to +365d --lang all --out feeds/\n  $ calsync export ics --site city --categories music --name music --out /var/www/feeds')
    .action(async (o: Record<string, unknown>) => {
      const label = () => ({ kind: 'export-ics', source: String(o.site), site: String(o.out), language: String(o.lang), dryRun: false });
      await withJsonFailure(Boolean(o.json), label, async () => {
        const langs = o.lang === 'all' ? [...LANGUAGES] : (String(o.lang).split(',') as Language[]);
        const featuredGiven = process.argv.includes('--featured') || process.argv.includes('--no-featured');
        const e = parseOptions(ExportConfig, {
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
        const config = loadCliConfig(globals());
        const params = exportParams(e, { ...config, sites: config.sites }, new Date());
        if (o.namespace) params.connection = { ...params.connection, namespace: o.namespace as string };
        const progress = new ProgressLine({ enabled: !o.json || process.stderr.isTTY });
        try {
          const result = await runIcsExport(params, { onProgress: progress.update });
          progress.done();
          if (o.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
          else for (const f of result.files) process.stdout.write(`${f.lang}: ${f.events} events → ${f.path}${f.changed ? '' : ' (unchanged)'}\n`);
          setExit(0);
        } finally {
          progress.done();
        }
      });
    });
}
