import type { RedisOptions as BullRedisOptions } from 'bullmq';
import { Redis } from 'ioredis';

/**
 * Connection options for BullMQ classes. Options, not a Redis instance: BullMQ closes connections
 * it created itself on close(), but leaves a passed-in instance open (it may be shared), which
 * kept worker processes alive after a graceful shutdown.
 */
export function bullConnection(url: string): BullRedisOptions {
  const u = new URL(url);
  return {
    host: u.hostname || '127.0.0.1',
    port: u.port ? Number(u.port) : 6379,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.pathname.length > 1 ? { db: Number(u.pathname.slice(1)) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
  };
}

/**
 * A command's own connection. ioredis prints "Unhandled error event" and a stack for every failed
 * reconnect of a client nobody listens to; here an outage is logged once, and once more when it ends.
 * Commands sent meanwhile still wait or fail as `options` say.
 */
export function commandConnection(url: string, options: { maxRetriesPerRequest: number | null }, log?: { warn(msg: string): void; info(msg: string): void }): Redis {
  const redis = new Redis(url, options);
  let down = false;
  redis.on('error', (err: Error) => {
    if (!down) log?.warn(`Redis unreachable (${err.message}); retrying`);
    down = true;
  });
  redis.on('ready', () => {
    if (down) log?.info('Redis reachable again');
    down = false;
  });
  return redis;
}

/** The worker's own connection (ledger, history, metrics, locks); it waits out Redis restarts. */
export function workerConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true });
}
