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
import { assertPortFree, portError } from '../ports.ts';
import type { GlobalOptions } from '../runtime.ts';
import { CalsyncError } from '../../errors/calsync-error.ts';

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
    .action(async (o: DemoOptions) => {
      const stop = new StopSignal();
      try {
        await runDemo(o, globals(), stop);
        setExit(0);
      } finally {
        stop.dispose();
      }
    });
}

interface DemoOptions {
  sandboxPort: number;
  servePort: number;
  dataDir: string;
  once?: boolean;
}

/**
 * SIGINT/SIGTERM from the first moment: a stop asked for during start-up still stops what was
 * started (Redis is a child process: left alone it would outlive us). A second signal exits at once.
 */
class StopSignal {
  readonly requested: Promise<void>;
  stopped = false;
  private readonly onSignal: () => void;
  constructor() {
    let resolve!: () => void;
    this.requested = new Promise<void>((r) => (resolve = r));
    this.onSignal = () => {
      if (this.stopped) process.exit(1);
      this.stopped = true;
      resolve();
    };
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
    // Orphaned (the shell or npm that started us is gone, and did not pass its signal on): stop too.
    const parent = process.ppid;
    this.orphanCheck = setInterval(() => process.ppid !== parent && this.onSignal(), 1000);
    this.orphanCheck.unref();
  }
  private readonly orphanCheck: NodeJS.Timeout;
  /** Throws DemoStoppedError when a signal came in while starting. */
  check(): void {
    if (this.stopped) throw new DemoStoppedError();
  }
  dispose(): void {
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
    clearInterval(this.orphanCheck);
  }
}

/** Stopped by a signal before it was ready: everything started so far was stopped again. */
export class DemoStoppedError extends CalsyncError {
  readonly code = 'demo-stopped';
  constructor() {
    super('stopped before the demo was ready (everything it had started is stopped)');
    this.name = 'DemoStoppedError';
  }
}

async function runDemo(o: DemoOptions, g: GlobalOptions, stop: StopSignal): Promise<void> {
  // Quiet until the banner (JSON job lines above it buried the URLs); job activity after it.
  const log = createLogger({ level: g.logLevel ?? 'warn' });
  // Both ports first: a taken port must not leave a redis-server behind.
  await assertPortFree(o.sandboxPort, '--sandbox-port');
  await assertPortFree(o.servePort, '--serve-port');
  const cleanups: Array<() => Promise<unknown>> = [];
  const stopAll = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  };
  try {
    const dataDir = path.resolve(o.dataDir);
    const redisUrlFromEnv = g.redis ?? process.env.REDIS_URL;
    const local = redisUrlFromEnv ? undefined : await startLocalRedis({ dataDir: path.join(dataDir, 'redis') });
    if (local) cleanups.push(() => local.stop());
    stop.check();
    const redisUrl = redisUrlFromEnv ?? (local?.url as string);
    const password = process.env.CALSYNC_DEMO_PASSWORD ?? randomBytes(9).toString('base64url');
    process.env.CALSYNC_DEMO_PASSWORD = password;
    const sandbox = await startSandbox({ port: o.sandboxPort, dataFile: path.join(dataDir, 'sandbox.json'), user: 'demo', password }).catch((e) => {
      throw portError(e, o.sandboxPort, '--sandbox-port');
    });
    cleanups.push(() => sandbox.close());
    stop.check();
    const config = loadConfig(DEMO_CONFIG);
    config.dataDir = dataDir;
    for (const s of config.sites) if (s.name === 'sandbox') s.restRoot = sandbox.url;
    for (const e of config.exports) e.outDir = path.join(dataDir, 'feeds');
    const workers = await startWorkers({ config, redisUrl, jobs: JOBS, log, prefix: g.prefix });
    cleanups.push(() => workers.close(10_000));
    const queues = openQueues(redisUrl, g.prefix);
    cleanups.push(() => Promise.all(Object.values(queues).map((q) => q.close())));
    const server = await startServer({ redis: workers.deps.redis, redisUrl, prefix: g.prefix, port: o.servePort, host: '127.0.0.1', feedsDir: path.join(dataDir, 'feeds'), log }).catch((e) => {
      throw portError(e, o.servePort, '--serve-port');
    });
    cleanups.push(() => server.close());
    stop.check();
    const first = firstRun(config, queues, redisUrl, g.prefix, log);
    first.catch(() => undefined); // a stop while it runs closes its queues under it: not an error
    await Promise.race([first, stop.requested]);
    stop.check();
    process.stdout.write(banner(config, server.url, sandbox, password, redisUrl));
    if ((g.logLevel ?? 'warn') === 'warn') log.level = 'info';
    if (!o.once) await stop.requested;
  } finally {
    await stopAll();
  }
}

/** First run: imports, then exports once the imports are in (the schedules take over after). */
async function firstRun(config: ReturnType<typeof loadConfig>, queues: ReturnType<typeof openQueues>, redisUrl: string, prefix: string | undefined, log: ReturnType<typeof createLogger>): Promise<void> {
  const events = { import: new QueueEvents('import', { connection: bullConnection(redisUrl), prefix }), export: new QueueEvents('export', { connection: bullConnection(redisUrl), prefix }) };
  try {
    await Promise.all(Object.values(events).map((e) => e.waitUntilReady()));
    const imports = await Promise.all(config.sources.map((s) => queues.import.add(s.kind === 'ics' ? 'import-ics' : 'import-csv', { source: s.name })));
    for (const job of imports) await waitForRun(job, queues.import, events.import, { timeoutMs: 120_000 }).catch(() => undefined);
    const exports = await Promise.all(config.exports.map((e) => queues.export.add('export-ics', { export: e.name })));
    for (const job of exports) await job.waitUntilFinished(events.export, 120_000);
  } finally {
    await Promise.all(Object.values(events).map((e) => e.close()));
  }
  const changes = await reconcileSchedulers(queues, config);
  log.info({ schedulers: changes.filter((c) => c.action !== 'unchanged').map((c) => c.id) }, 'schedules in place');
}

function banner(config: ReturnType<typeof loadConfig>, serveUrl: string, sandbox: { url: string; namespace: string }, password: string, redisUrl: string): string {
  const feedLines = config.exports.flatMap((e) => (e.languages ?? ['en']).map((l) => `    ${serveUrl}/feeds/${e.name}/${l}.ics`));
  return [
    'calsync demo is running (Ctrl-C stops everything)',
    `  sandbox site:  ${sandbox.url}/${sandbox.namespace}/events   (user demo, password ${password})`,
    `  dashboard:     ${serveUrl}/admin/queues`,
    `  metrics:       ${serveUrl}/metrics`,
    `  health:        ${serveUrl}/healthz`,
    `  feeds:         ${serveUrl}/feeds/`,
    ...feedLines,
    `  run history:   REDIS_URL=${redisUrl} npm run calsync -- runs`,
    'ready',
    '',
  ].join('\n');
}
