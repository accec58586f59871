import { existsSync } from 'node:fs';
import { Redis } from 'ioredis';
import { loadConfig, parseConfig } from '../config/load.ts';
import type { CalsyncConfig } from '../config/schema.ts';
import { embeddedRedis, RedisUnavailableError, type EmbeddedRedis } from '../queue/redis-server.ts';
import type { Logger } from '../util/log.ts';

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

export interface InlineRedis {
  redis?: Redis;
  url?: string;
  stop(): Promise<void>;
}

/**
 * Redis for a CLI command: --redis / $REDIS_URL / the config's, else the data dir's embedded
 * server, shared by every command on that data dir (so the ledger persists and reruns send no writes), else none (the
 * run still creates no duplicates, it only rewrites unchanged events).
 */
export async function inlineRedis(opts: GlobalOptions, config: CalsyncConfig, log: Logger, { required = false } = {}): Promise<InlineRedis> {
  const url = opts.redis ?? process.env.REDIS_URL ?? config.redis;
  if (url) {
    const redis = new Redis(url, { maxRetriesPerRequest: null });
    return { redis, url, stop: async () => void redis.disconnect() };
  }
  let local: EmbeddedRedis;
  try {
    // Shared with every other command on this data dir (src/queue/redis-server.ts).
    local = await embeddedRedis(config.dataDir);
  } catch (err) {
    if (required || !(err instanceof RedisUnavailableError)) throw err;
    log.warn('no Redis available: the ledger is kept in memory for this run only, so a rerun rewrites unchanged events (it never duplicates them). Set REDIS_URL or install redis-server to keep it.');
    return { stop: async () => undefined };
  }
  const redis = new Redis(local.url, { maxRetriesPerRequest: null });
  return {
    redis,
    url: local.url,
    stop: async () => {
      await redis.quit().catch(() => undefined);
      await local.release();
    },
  };
}
