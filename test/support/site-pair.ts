import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import type { SandboxOptions } from '../../src/sandbox/index.ts';
import { testRedis } from './redis.ts';
import { testSite } from './site.ts';

export type TestSite = Awaited<ReturnType<typeof testSite>>;

/** A sync's two sandbox sites and a Redis connection. */
export interface SitePair {
  source: TestSite;
  target: TestSite;
  redis: Redis;
}

/**
 * The fixture of a file of sync tests: a source and a target sandbox site and a Redis connection,
 * started before the file's tests (handed to `set`) and closed after them.
 */
export function useSitePair(set: (pair: SitePair) => void, opts: { source?: SandboxOptions; target?: SandboxOptions } = {}): void {
  let pair: Partial<SitePair> = {};
  beforeAll(async () => {
    pair = { redis: testRedis() };
    pair.source = await testSite(opts.source);
    pair.target = await testSite(opts.target);
    set(pair as SitePair);
  }, 60_000);
  afterAll(async () => {
    await pair.source?.close();
    await pair.target?.close();
    await pair.redis?.quit();
  });
}
