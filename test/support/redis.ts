import { inject } from 'vitest';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';

/** URL of the run's Redis (see global-setup.ts). */
export function redisUrl(): string {
  return inject('redisUrl');
}

/** A connection for one test file; BullMQ-compatible (no retry limit on blocking commands). */
export function testRedis(): Redis {
  return new Redis(redisUrl(), { maxRetriesPerRequest: null });
}

/** A prefix that isolates one test's queues and keys from every other test in the run. */
export function testPrefix(): string {
  return `t-${randomUUID().slice(0, 8)}`;
}
