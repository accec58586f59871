import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import type { RunProgress } from '../../src/runs/context.ts';
import { runIcsImport } from '../../src/runs/import-ics.ts';
import { generateIcsFeed } from '../support/generate-ics.ts';
import { testPrefix, testRedis } from '../support/redis.ts';
import { feedServer, testSite } from '../support/site.ts';

/**
 * Found trying calsync against a real TEC site through the queue (stop 32): an import's progress
 * moved once per batch of 250 events, every 8 s on a 30 events/s site, and `enqueue --wait`'s line
 * stood still meanwhile. It now also moves once a second with the events settled so far, never back.
 */
describe('regression: write progress moved once per batch of 250', () => {
  let site: Awaited<ReturnType<typeof testSite>>;
  let feed: Awaited<ReturnType<typeof feedServer>>;
  let redis: Redis;
  beforeAll(async () => {
    // 50 ms per request at 8 in flight: 300 events take about 2 s, in one batch.
    site = await testSite({ latencyMs: 50 });
    feed = await feedServer(generateIcsFeed({ events: 300, seed: 3, recurringShare: 0, start: new Date(Date.UTC(2027, 2, 1)), days: 60 }));
    redis = testRedis();
  });
  afterAll(async () => {
    redis.disconnect();
    await feed.close();
    await site.close();
  });

  it('reports the events written so far at least once a second, forward only, ending at the total', { timeout: 60_000 }, async () => {
    const seen: RunProgress[] = [];
    const r = await runIcsImport({
      location: feed.url, site: site.site, sourceKey: 'progress', lang: 'en', window: { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T00:00:00Z') },
      retire: 'keep', onEdit: 'overwrite', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allow: [new URL(feed.url).host], refreshAfterMs: 0,
    }, { redis, prefix: testPrefix(), onProgress: (p) => void seen.push(p) });
    const writes = seen.filter((p) => p.phase === 'write');
    const total = r.counts.events.read;
    expect(total).toBeGreaterThan(250);
    // More than the batch ends (two here), each a step forward, the last at the total.
    expect(writes.length).toBeGreaterThan(2);
    for (let i = 1; i < writes.length; i++) expect(writes[i]!.done).toBeGreaterThan(writes[i - 1]!.done);
    expect(writes.at(-1)).toEqual({ phase: 'write', done: total, total });
  });
});
