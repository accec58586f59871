import http from 'node:http';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import express, { type Request, type Response, type NextFunction } from 'express';
import type { Redis } from 'ioredis';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Logger } from 'pino';
import { createFeedHandler } from '../export/index.ts';
import { renderMetrics } from '../metrics/exposition.ts';
import { fieldOf, MetricsRecorder } from '../metrics/recorder.ts';
import { openQueues } from '../queue/worker.ts';
import { basicAuth, checkBind, hostCheck, readOnly, sameOriginWrites } from './guard.ts';
import type { QueueName } from '../queue/names.ts';

export interface ServeOptions {
  redis: Redis;
  redisUrl: string;
  prefix?: string;
  port: number;
  host: string;
  feedsDir: string;
  publicUrl?: string;
  /** Basic auth in front of the dashboard; without it the dashboard is read-only and only loopback binds are allowed. */
  basicAuth?: { user: string; password: string };
  log: Logger;
}

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * `calsync serve`: the ICS feeds, the Bull Board dashboard, Prometheus metrics and a health check.
 * Metrics written by workers in other processes come from Redis; feed counters are this process'.
 */
export async function startServer(o: ServeOptions): Promise<RunningServer> {
  checkBind(o.host, o.basicAuth !== undefined);
  const prefix = o.prefix ?? 'calsync';
  const queues = openQueues(o.redisUrl, prefix);
  const app = express();
  app.disable('x-powered-by');
  app.use(hostCheck(o.publicUrl));
  const feedCounters = mountFeeds(app, o);
  mountMetrics(app, queues, feedCounters, new MetricsRecorder(o.redis, prefix));
  mountHealth(app, o, queues);
  mountDashboard(app, o, queues);
  mountIndexAndErrors(app, o.log);
  return listen(app, o, queues);
}

type Queues = ReturnType<typeof openQueues>;

/** The ICS feeds; returns the per-feed request counters they fill (this process' own). */
function mountFeeds(app: express.Express, o: ServeOptions): Map<string, number> {
  const feedCounters = new Map<string, number>();
  const feeds = createFeedHandler({
    dir: o.feedsDir,
    publicUrl: o.publicUrl,
    onHit: ({ name, lang, status }) => {
      const f = fieldOf('calsync_feed_requests_total', { feed: name, lang, status });
      feedCounters.set(f, (feedCounters.get(f) ?? 0) + 1);
    },
  });
  app.use(async (req, res, next) => {
    try {
      if (!(await feeds(req, res))) next();
    } catch (err) {
      next(err);
    }
  });
  return feedCounters;
}

/** Prometheus: the workers' shared counters from Redis, the queues, the feeds, and this process' defaults. */
function mountMetrics(app: express.Express, queues: Queues, feedCounters: Map<string, number>, recorder: MetricsRecorder): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'calsync_serve_' });
  app.get('/metrics', async (_req, res) => {
    const own = await registry.metrics();
    const shared = await renderMetrics(recorder, Object.values(queues), feedCounters);
    res.type('text/plain; version=0.0.4').send(`${shared}${own}`);
  });
}

/** How long /healthz waits for Redis before it answers 503. */
const HEALTH_TIMEOUT_MS = 2_000;

function mountHealth(app: express.Express, o: ServeOptions, queues: Queues): void {
  // Worker processes, not BullMQ workers (one per queue it serves: 5 each): each names its queue
  // connections `<prefix>:<queue>:w:<host>:<pid>` (src/queue/worker.ts).
  const probe = async (): Promise<{ redisOk: boolean; workers: number }> => {
    const redisOk = (await o.redis.ping()) === 'PONG';
    const processes = new Set<string>();
    for (const q of Object.values(queues)) for (const w of await q.getWorkers()) processes.add(String(w.rawname ?? w.name).split(':w:').pop() ?? '');
    return { redisOk, workers: processes.size };
  };
  app.get('/healthz', async (_req, res) => {
    // The connections retry forever and queue commands while Redis is down (maxRetriesPerRequest:
    // null), so an unbounded PING would leave the health check without an answer for the outage.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), HEALTH_TIMEOUT_MS)));
    const got = await Promise.race([probe().catch(() => undefined), late]);
    clearTimeout(timer);
    const redisOk = got?.redisOk === true;
    res.status(redisOk ? 200 : 503).json({ status: redisOk ? 'ok' : 'redis unreachable', redis: redisOk, workers: got?.workers ?? 0 });
  });
}

function mountDashboard(app: express.Express, o: ServeOptions, queues: Queues): void {
  const board = new ExpressAdapter();
  board.setBasePath('/admin/queues');
  // Managing jobs (add, retry, pause, remove) needs the password; without one the board only shows.
  const readOnlyMode = o.basicAuth === undefined;
  createBullBoard({ queues: (Object.keys(queues) as QueueName[]).map((q) => new BullMQAdapter(queues[q], { readOnlyMode })), serverAdapter: board });
  app.use('/admin/queues', o.basicAuth ? basicAuth(o.basicAuth) : readOnly(), sameOriginWrites());
  app.use('/admin/queues', board.getRouter());
}

function mountIndexAndErrors(app: express.Express, log: Logger): void {
  app.get('/', (_req, res) => {
    res.type('text/html').send(`<!doctype html><meta charset="utf-8"><title>calsync</title><h1>calsync</h1><ul><li><a href="/feeds/">feeds</a></li><li><a href="/admin/queues">queues dashboard</a></li><li><a href="/metrics">metrics</a></li><li><a href="/healthz">health</a></li></ul>`);
  });
  app.use((_req, res) => {
    res.status(404).type('text/plain').send('not found\n');
  });
  app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => {
    log.error({ err: err.message }, 'serve error');
    res.status(500).type('text/plain').send('internal error\n');
  });
}

async function listen(app: express.Express, o: ServeOptions, queues: Queues): Promise<RunningServer> {
  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, resolve);
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : o.port;
  return {
    url: `http://${o.host}:${port}`,
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await Promise.all(Object.values(queues).map((q) => q.close()));
    },
  };
}
