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
export function commandConnection(url: string, options: { maxRetriesPerRequest: number | null }, log?: OutageLog): Redis {
  return watchedForOutages(new Redis(url, options), log);
}

/** The worker's own connection (ledger, history, metrics, locks); it waits out Redis restarts. */
export function workerConnection(url: string, log?: OutageLog): Redis {
  return watchedForOutages(new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true }), log);
}

type OutageLog = { warn(msg: string): void; info(msg: string): void };

/** One outage in a log: its first error, then its end (if the emitter says when it is ready again). */
function outageLog(log?: OutageLog): { error: (err: Error) => void; ready: () => void } {
  let down = false;
  return {
    error: (err) => {
      if (!down) log?.warn(`Redis unreachable (${err.message}); retrying`);
      down = true;
    },
    ready: () => {
      if (down) log?.info('Redis reachable again');
      down = false;
    },
  };
}

/**
 * An outage logged once, and its end. Without an 'error' listener ioredis prints every failed
 * reconnection as "[ioredis] Unhandled error event" with its stack (13 of them in a worker's JSON log
 * for a 5 s Redis restart).
 */
function watchedForOutages(redis: Redis, log?: OutageLog): Redis {
  const outage = outageLog(log);
  redis.on('error', outage.error);
  redis.on('ready', outage.ready);
  return redis;
}

/**
 * For BullMQ's queues and queue events, which emit their connection's errors (each printed with its
 * stack when nothing listens, four of them in `enqueue --wait`'s output for a 5 s Redis restart):
 * the first is logged, as an outage; the rest are the same outage.
 */
export function firstErrorLogged(log: OutageLog): (err: Error) => void {
  return outageLog(log).error;
}
