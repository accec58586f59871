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

/** The worker's own connection (ledger, history, metrics, locks); it waits out Redis restarts. */
export function workerConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true });
}
