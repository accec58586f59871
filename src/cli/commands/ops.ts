import type { Command } from 'commander';
import type { CalsyncConfig } from '../../config/schema.ts';
import { RunHistory, type RunRecord } from '../../queue/history.ts';
import { commandRedis, loadCliConfig, type GlobalOptions } from '../runtime.ts';
import { intOption } from '../options.ts';
import { OptionsError } from '../validate.ts';

/**
 * The Redis the worker and `enqueue` use (src/cli/runtime.ts), for a short command: a request
 * fails after two retries instead of waiting out an outage.
 */
const historyRedis = (g: GlobalOptions, config: CalsyncConfig) =>
  commandRedis(g, config, {
    need: 'required',
    maxRetriesPerRequest: 2,
    unavailable: `no Redis: REDIS_URL is not set and the embedded Redis of ${config.dataDir} cannot be started. Set REDIS_URL (or --redis, or "redis" in the config) to the worker's Redis.`,
  });

/** The names the config runs under (sources, exports, syncs): what history, pause and resume are kept by. */
function configuredNames(config: CalsyncConfig): Set<string> {
  return new Set([...config.sources, ...config.exports, ...config.syncs].map((x) => x.name));
}

export function registerOps(program: Command, globals: () => GlobalOptions, setExit: (code: number) => void): void {
  program
    .command('runs')
    .description('Show the run history of queued sources, exports and syncs (counts, failures with reasons, duration)')
    .option('--source <name>', 'only this source/export/sync')
    .option('--limit <n>', 'runs per name', intOption, 10)
    .option('--json', 'JSON output')
    .addHelpText('after', '\nExamples:\n  $ calsync runs\n  $ calsync runs --source city-feed --json')
    .action(async (o: { source?: string; limit: number; json?: boolean }) => {
      const g = globals();
      const config = loadCliConfig(g);
      const { redis, stop } = await historyRedis(g, config);
      try {
        const h = new RunHistory(redis, { prefix: g.prefix, keep: config.history.keep, pauseAfterFailures: config.history.pauseAfterFailures });
        const runs = await h.list(o.source, o.limit);
        const names = o.source ? [o.source] : [...new Set(runs.map((r) => r.name))];
        const paused = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await h.paused(n)] as const)));
        if (o.json) {
          process.stdout.write(`${JSON.stringify({ runs, paused }, null, 2)}\n`);
          return;
        }
        const known = configuredNames(config);
        for (const [n, p] of Object.entries(paused)) if (p) process.stdout.write(`PAUSED ${n}${known.has(n) ? '' : ' (not in the config)'} since ${p.since} after ${p.failures} failed runs: ${p.lastError}\n  resume with: calsync resume ${n}\n`);
        for (const r of runs) {
          const counts = countsLine(r.counts);
          process.stdout.write(`${r.startedAt} ${r.name} ${r.kind} ${r.status.toUpperCase()} ${(r.durationMs / 1000).toFixed(1)}s ${counts}${r.error ? ` — ${r.error}` : ''}\n`);
          for (const f of r.failures.slice(0, 5)) process.stdout.write(`    failed ${f.kind} ${f.ref ?? f.slug ?? ''}: ${f.reason}\n`);
        }
        // Inline commands print their report and record nothing: an empty history must not read as "nothing ran".
        if (runs.length === 0) process.stdout.write('no runs recorded yet: the history holds queued runs (`calsync enqueue`, a worker\'s schedules); inline `import`, `sync` and `export` commands print their report and are not recorded\n');
      } finally {
        await stop();
      }
    });

  program
    .command('resume')
    .description('Resume a source/export/sync that was paused after failing several runs in a row')
    .argument('<name>')
    .addHelpText('after', '\nExample:\n  $ calsync resume city-feed')
    .action(async (name: string) => {
      const g = globals();
      const config = loadCliConfig(g);
      const { redis, stop } = await historyRedis(g, config);
      try {
        const h = new RunHistory(redis, { prefix: g.prefix });
        const was = await h.paused(name);
        // A typo must not look like success: the paused one stays paused.
        if (!was && !configuredNames(config).has(name)) throw new OptionsError([`nothing to resume: no source, export or sync named "${name}" in the config, and nothing paused under that name (\`calsync runs\` lists what is paused)`]);
        await h.resume(name);
        process.stdout.write(was ? `resumed ${name} (paused since ${was.since}: ${was.lastError})\n` : `${name} was not paused\n`);
      } finally {
        await stop();
      }
    });

  program
    .command('config')
    .description('Validate the config file and print what it declares')
    .argument('[action]', 'check', 'check')
    .addHelpText('after', '\nExample:\n  $ calsync --config calsync.config.json config check')
    .action(() => {
      const config = loadCliConfig(globals());
      process.stdout.write(
        `config ok: ${config.sites.length} site(s), ${config.sources.length} source(s), ${config.exports.length} export(s), ${config.syncs.length} sync(s)\n`,
      );
      setExit(0);
    });
}

/** A run record's counts as `calsync runs` prints them: an import's or sync's events, an export's events per feed. */
function countsLine(counts: RunRecord['counts']): string {
  const ev = counts?.events;
  if (ev) return `read ${ev.read}, ${ev.created} created, ${ev.updated} updated, ${ev.unchanged} unchanged, ${ev.skipped} skipped, ${ev.failed} failed, ${ev.retired} retired`;
  const feeds = Object.entries(counts?.exported ?? {});
  return feeds.length ? feeds.map(([lang, n]) => `${lang}: ${n} events`).join(', ') : '';
}
