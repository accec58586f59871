import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import type { SandboxOptions } from '../../src/sandbox/index.ts';
import type { SyncParams } from '../../src/runs/sync-site.ts';
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

/**
 * A sync of the pair's source (key `src`, named `source`) into its target: English, over 2027 (the
 * year seedSite seeds), trashing what vanished, every modified_utc read counting as settled.
 */
export function pairSyncParams(pair: SitePair, over: Partial<SyncParams> = {}): SyncParams {
  return {
    from: { ...pair.source.site, key: 'src', name: 'source' }, to: pair.target.site, lang: 'en',
    window: { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T23:59:59Z') },
    retire: 'trash', onEdit: 'overwrite', dryRun: false, settledMs: 0, ...over,
  };
}
