import type { TestProject } from 'vitest/node';
import { startLocalRedis, type LocalRedis } from '../../src/queue/redis-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

let redis: LocalRedis | undefined;

/** One throwaway redis-server per test run, unless REDIS_URL points at one already. */
export async function setup(project: TestProject): Promise<void> {
  if (process.env.REDIS_URL) {
    project.provide('redisUrl', process.env.REDIS_URL);
    return;
  }
  redis = await startLocalRedis();
  project.provide('redisUrl', redis.url);
}

export async function teardown(): Promise<void> {
  await redis?.stop();
}
