import path from 'node:path';
import type { Command } from 'commander';
import { startServer } from '../../serve/server.ts';
import { createLogger } from '../../util/log.ts';
import { commandRedis, loadCliConfig, type GlobalOptions } from '../runtime.ts';
import { intOption } from '../options.ts';
import { ServePasswordMissingError } from '../../serve/guard.ts';

export function registerServe(program: Command, globals: () => GlobalOptions, setExit: (code: number) => void): void {
  program
    .command('serve')
    .description('Serve the ICS feeds (/feeds/), the queue dashboard (/admin/queues), Prometheus metrics (/metrics) and /healthz')
    .option('--port <n>', 'port', intOption)
    .option('--host <host>', 'address to listen on')
    .option('--feeds <dir>', 'directory of exported feeds (default: the first export\'s outDir)')
    .addHelpText('after', '\nDashboard Basic auth: serve.basicAuth in the config (user + passwordEnv). Without it the dashboard is\nread-only and serve listens on loopback only. Requests must name this server in Host: a loopback name or\nserve.publicUrl (421 otherwise).\n\nExamples:\n  $ calsync --config calsync.config.json serve\n  $ calsync serve --port 8788 --feeds .data/feeds')
    .action(async (o: { port?: number; host?: string; feeds?: string }) => {
      const g = globals();
      const log = createLogger({ level: g.logLevel === 'warn' ? 'info' : g.logLevel });
      const config = loadCliConfig(g);
      const r = await commandRedis(g, config, { need: 'required', log, waitForRedis: true });
      const auth = config.serve.basicAuth;
      const password = auth ? process.env[auth.passwordEnv] : undefined;
      if (auth && !password) throw new ServePasswordMissingError(auth.passwordEnv);
      const server = await startServer({
        redis: r.redis,
        redisUrl: r.url,
        port: o.port ?? config.serve.port,
        host: o.host ?? config.serve.host,
        feedsDir: path.resolve(o.feeds ?? config.exports[0]?.outDir ?? path.join(config.dataDir, 'feeds')),
        publicUrl: config.serve.publicUrl,
        basicAuth: auth && password ? { user: auth.user, password } : undefined,
        log,
      });
      process.stdout.write(`calsync serve at ${server.url}\n  feeds:     ${server.url}/feeds/\n  dashboard: ${server.url}/admin/queues\n  metrics:   ${server.url}/metrics\n  health:    ${server.url}/healthz\n`);
      await new Promise<void>((resolve) => {
        const stop = async () => {
          await server.close();
          await r.stop();
          resolve();
        };
        process.once('SIGINT', () => void stop());
        process.once('SIGTERM', () => void stop());
      });
      setExit(0);
    });
}
