import { existsSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { commandConnection } from '../queue/connection.ts';
import { loadConfig, parseConfig } from '../config/load.ts';
import type { CalsyncConfig } from '../config/schema.ts';
import { embeddedRedis, RedisUnavailableError, type EmbeddedRedis } from '../queue/redis-server.ts';
import { runContext, type RunContext } from '../runs/context.ts';
import { createLogger, type Logger } from '../util/log.ts';
import { redactUrl } from '../util/redact.ts';
import { withJsonFailure, type RunLabel } from './outcome.ts';
import { ProgressLine } from './progress.ts';

export interface GlobalOptions {
  config?: string;
  redis?: string;
  logLevel?: string;
  /** Key prefix for queues and calsync state (several deployments on one Redis). */
  prefix: string;
}

/** The config from --config, $CALSYNC_CONFIG or ./calsync.config.(json|yaml|yml); an empty one otherwise. */
export function loadCliConfig(opts: GlobalOptions): CalsyncConfig {
  const file = opts.config ?? process.env.CALSYNC_CONFIG ?? ['calsync.config.json', 'calsync.config.yaml', 'calsync.config.yml'].find((f) => existsSync(f));
  if (!file) return parseConfig({}, '(no config file)');
  return loadConfig(file);
}

/** A CLI command's Redis: where it is, a connection to it, and how to let go of both. */
export interface CommandRedis {
  redis?: Redis;
  url?: string;
  /** The data dir's embedded server (no --redis, $REDIS_URL or config `redis`). */
  embedded: boolean;
  stop(): Promise<void>;
}

export interface CommandRedisOptions {
  /**
   * 'required': fail without a Redis (the queue's commands, run history); 'optional': without
   * one, say so and go on (an inline run keeps its ledger in memory); 'none': open nothing (a run
   * that keeps no state in Redis). @defaultValue 'optional'
   */
  need?: 'required' | 'optional' | 'none';
  /** What a required Redis's absence says, instead of the embedded server's own reason. */
  unavailable?: string;
  /** ioredis' `maxRetriesPerRequest`: null waits out an outage; a number fails a short command soon. @defaultValue null */
  maxRetriesPerRequest?: number | null;
  /**
   * A long-running command (worker, serve) waits for a Redis given by URL that does not answer yet
   * (started before it, restarted); any other command stops within seconds, naming the URL.
   */
  waitForRedis?: boolean;
  /** Logs an outage once, and its end (src/queue/connection.ts), and a missing optional Redis. */
  log?: Logger;
}

/**
 * Redis for a CLI command: --redis / $REDIS_URL / the config's, else the data dir's embedded
 * server, shared by every command on that data dir (so the ledger and the run history persist and
 * reruns send no writes), else none when `need` allows it (the run still creates no duplicates,
 * it only rewrites unchanged events).
 */
export async function commandRedis(opts: GlobalOptions, config: CalsyncConfig, o: CommandRedisOptions & { need: 'required' }): Promise<CommandRedis & { redis: Redis; url: string }>;
export async function commandRedis(opts: GlobalOptions, config: CalsyncConfig, o?: CommandRedisOptions): Promise<CommandRedis>;
export async function commandRedis(opts: GlobalOptions, config: CalsyncConfig, o: CommandRedisOptions = {}): Promise<CommandRedis> {
  const need = o.need ?? 'optional';
  if (need === 'none') return { embedded: false, stop: async () => undefined };
  const connect = (url: string) => commandConnection(url, { maxRetriesPerRequest: o.maxRetriesPerRequest ?? null }, o.log);
  const url = opts.redis ?? process.env.REDIS_URL ?? config.redis;
  if (url) {
    const redis = connect(url);
    if (!o.waitForRedis) await answering(redis, url);
    return { redis, url, embedded: false, stop: async () => void redis.disconnect() };
  }
  let local: EmbeddedRedis;
  try {
    // Shared with every other command on this data dir (src/queue/redis-server.ts).
    local = await embeddedRedis(config.dataDir);
  } catch (err) {
    if (!(err instanceof RedisUnavailableError)) throw err;
    if (need === 'required') throw o.unavailable ? new RedisUnavailableError(o.unavailable) : err;
    o.log?.warn('no Redis available: the ledger is kept in memory for this run only, so a rerun rewrites unchanged events (it never duplicates them). Set REDIS_URL or install redis-server to keep it.');
    return { embedded: false, stop: async () => undefined };
  }
  const redis = connect(local.url);
  return {
    redis,
    url: local.url,
    embedded: true,
    stop: async () => {
      await redis.quit().catch(() => undefined);
      await local.release();
    },
  };
}

/** What an inline command (import ics/csv, sync, export ics) supplies to runInline. */
export interface InlineCommand<O, P, R> {
  json: boolean;
  /** Names the run in the JSON failure report when it fails before it has a report of its own. */
  label: () => RunLabel;
  /** The command's flags checked by the run's option schema (src/runs/options/). */
  options: () => O;
  params: (options: O, config: CalsyncConfig) => P;
  run: (params: P, ctx: RunContext) => Promise<R>;
  /** The result for a terminal (`--json` prints it as JSON instead). */
  text: (result: R) => string;
  exitCode: (result: R) => number;
  /** Whether the run keeps its ledger and state in Redis (imports and syncs; an export keeps none). @defaultValue true */
  redis?: boolean;
}

/**
 * Runs a command in this process, the same way for every run: options, logger, config, Redis,
 * progress on stderr, then the result as text or JSON and the exit code; with `--json` a failure
 * still prints one JSON report. Redis is always released.
 */
export async function runInline<O, P, R>(g: GlobalOptions, setExit: (code: number) => void, c: InlineCommand<O, P, R>): Promise<void> {
  await withJsonFailure(c.json, c.label, async () => {
    const options = c.options();
    const log = createLogger({ level: g.logLevel });
    const config = loadCliConfig(g);
    const params = c.params(options, config);
    const r = await commandRedis(g, config, { need: c.redis === false ? 'none' : 'optional', log });
    const progress = new ProgressLine({ enabled: !c.json || process.stderr.isTTY });
    try {
      const result = await c.run(params, runContext({ redis: r.redis, prefix: g.prefix, log }, { onProgress: progress.update }));
      progress.done();
      process.stdout.write(c.json ? `${JSON.stringify(result, null, 2)}\n` : `${c.text(result)}\n`);
      setExit(c.exitCode(result));
    } finally {
      progress.done();
      await r.stop();
    }
  });
}

/** How long a one-shot command waits for a Redis given by URL to answer its first command. */
const REDIS_ANSWER_MS = 5000;

/**
 * A Redis given by URL answers, or the command stops here: `enqueue` and the inline runs waited
 * forever (`enqueue` with one "retrying" line), `runs` failed with ioredis' "Reached the max retries
 * per request limit", which named neither Redis nor its URL.
 */
async function answering(redis: Redis, url: string): Promise<void> {
  let last = '';
  const onError = (err: Error) => (last = err.message);
  redis.on('error', onError);
  const ping = redis.ping();
  ping.catch(() => undefined); // rejected once disconnected below: settled here
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([ping, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${REDIS_ANSWER_MS / 1000} s`)), REDIS_ANSWER_MS)))]);
  } catch (err) {
    redis.disconnect();
    throw new RedisUnavailableError(`Redis at ${redactUrl(url)} does not answer (${last || (err as Error).message}): start it, or set --redis / REDIS_URL to the Redis the worker uses`, { given: true });
  } finally {
    clearTimeout(timer);
    redis.off('error', onError);
  }
}
