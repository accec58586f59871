import { Redis } from 'ioredis';

/**
 * Workers and QueueEvents block on Redis, so they need `maxRetriesPerRequest: null`; producers
 * should fail fast instead (BullMQ docs, "failing fast when Redis is down").
 */
export function workerConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true });
}

export function producerConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: 3, enableOfflineQueue: false, lazyConnect: false });
}

/** Redacts the password of a redis:// URL for logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}
