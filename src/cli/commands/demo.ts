import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { Command } from 'commander';
import { QueueEvents } from 'bullmq';
import { JOBS } from '../../../jobs/index.ts';
import { loadConfig } from '../../config/load.ts';
import { startSandbox } from '../../sandbox/index.ts';
import { startServer } from '../../serve/server.ts';
import { bullConnection } from '../../queue/connection.ts';
import { waitForRun } from '../../queue/follow.ts';
import { reconcileSchedulers } from '../../queue/schedulers.ts';
import { openQueues, startWorkers } from '../../queue/worker.ts';
import { startLocalRedis } from '../../queue/redis-server.ts';
import { createLogger } from '../../util/log.ts';
import { intOption } from '../options.ts';
import type { GlobalOptions } from '../runtime.ts';

const DEMO_CONFIG = fileURLToPath(new URL('../../../demo/calsync.config.json', import.meta.url));

/**
 * `npm start`: everything on one machine — a local Redis under .data/, the sandbox site, the
 * worker and serve — with the bundled demo config: imports the demo ICS/CSV files (en, fr, de),
 * exports per-language feeds and prints where to look. Ctrl-C stops it all.
 */
export function registerDemo(program: Command, globals: () => GlobalOptions, setExit: (code: number) => void): void {
  program
    .command('demo')
    .description('Run the embedded default: local Redis + sandbox site + worker + serve, with the bundled demo config (npm start)')
    .option('--sandbox-port <n>', 'sandbox port (0 = any free)', intOption, 8787)
    .option('--serve-port <n>', 'serve port (0 = any free)', intOption, 8788)
    .option('--data-dir <dir>', 'where Redis, the sandbox and the feeds keep their files', '.data/demo')
    .option('--once', 'stop after the first imports and exports (for smoke tests)')
    .action(async (o: { sandboxPort: number; servePort: number; dataDir: string; once?: boolean }) => {
      const g = globals();
      const log = createLogger({ level: g.logLevel === 'warn' ? 'info' : g.logLevel });
      const dataDir = path.resolve(o.dataDir);
      const redisUrlFromEnv = g.redis ?? process.env.REDIS_URL;
      const local = redisUrlFromEnv ? undefined : await startLocalRedis({ dataDir: path.join(dataDir, 'redis') });
      const redisUrl = redisUrlFromEnv ?? (local?.url as string);
      const password = process.env.CALSYNC_DEMO_PASSWORD ?? randomBytes(9).toString('base64url');
      process.env.CALSYNC_DEMO_PASSWORD = password;
      const sandbox = await startSandbox({ port: o.sandboxPort, dataFile: path.join(dataDir, 'sandbox.json'), user: 'demo', password });
      const config = loadConfig(DEMO_CONFIG);
      config.dataDir = dataDir;
      for (const s of config.sites) if (s.name === 'sandbox') s.restRoot = sandbox.url;
      for (const e of config.exports) e.outDir = path.join(dataDir, 'feeds');
      const workers = await startWorkers({ config, redisUrl, jobs: JOBS, log, prefix: g.prefix });
      const queues = openQueues(redisUrl, g.prefix);
      const server = await startServer({ redis: workers.deps.redis, redisUrl, prefix: g.prefix, port: o.servePort, host: '127.0.0.1', feedsDir: path.join(dataDir, 'feeds'), log });
      const stopAll = async () => {
        await server.close();
        await workers.close(10_000);
        await Promise.all(Object.values(queues).map((q) => q.close()));
        await sandbox.close();
        await local?.stop();
      };
      try {
        // First run: imports, then exports once the imports are in (the schedules take over after).
        const prefix = g.prefix;
        const events = { import: new QueueEvents('import', { connection: bullConnection(redisUrl), prefix }), export: new QueueEvents('export', { connection: bullConnection(redisUrl), prefix }) };
        await Promise.all(Object.values(events).map((e) => e.waitUntilReady()));
        const imports = await Promise.all(config.sources.map((s) => queues.import.add(s.kind === 'ics' ? 'import-ics' : 'import-csv', { source: s.name })));
        for (const job of imports) await waitForRun(job, queues.import, events.import, { timeoutMs: 120_000 }).catch(() => undefined);
        const exports = await Promise.all(config.exports.map((e) => queues.export.add('export-ics', { export: e.name })));
        for (const job of exports) await job.waitUntilFinished(events.export, 120_000);
        await Promise.all(Object.values(events).map((e) => e.close()));
        const changes = await reconcileSchedulers(queues, config);
        log.info({ schedulers: changes.filter((c) => c.action !== 'unchanged').map((c) => c.id) }, 'schedules in place');
      } catch (err) {
        await stopAll();
        throw err;
      }
      const feedLines = config.exports.flatMap((e) => (e.languages ?? ['en']).map((l) => `    ${server.url}/feeds/${e.name}/${l}.ics`));
      process.stdout.write(
        [
          'calsync demo is running (Ctrl-C stops everything)',
          `  sandbox site:  ${sandbox.url}/${sandbox.namespace}/events   (user demo, password ${password})`,
          `  dashboard:     ${server.url}/admin/queues`,
          `  metrics:       ${server.url}/metrics`,
          `  health:        ${server.url}/healthz`,
          `  feeds:         ${server.url}/feeds/`,
          ...feedLines,
          `  run history:   REDIS_URL=${redisUrl} npm run calsync -- runs`,
          'ready',
          '',
        ].join('\n'),
      );
      if (!o.once) {
        await new Promise<void>((resolve) => {
          process.once('SIGINT', () => resolve());
          process.once('SIGTERM', () => resolve());
        });
      }
      await stopAll();
      setExit(0);
    });
}
