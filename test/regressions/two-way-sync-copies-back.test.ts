import { describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { runSiteSync, type SyncParams } from '../../src/runs/sync-site.ts';
import type { EventRecord } from '../../src/api/index.ts';
import { testPrefix } from '../support/redis.ts';
import { useSitePair, type TestSite } from '../support/site-pair.ts';

/**
 * Found syncing two real TEC sites both ways (a → b, then b → a): the second sync copied every event
 * of a back into a (`b-a-event-1` beside `event-1`), and the next a → b copied those into b again
 * (`a-b-a-event-1`), one prefix longer each pass, with nothing in the report. Copies that the
 * opposite sync wrote are now left out, with one warning.
 */
describe('regression: a two-way sync copied every event back to the site it came from', () => {
  type Site = TestSite;
  let a: Site;
  let b: Site;
  let redis: Redis;
  const prefix = testPrefix();
  const params = (from: Site, fromKey: string, to: Site, toKey: string): SyncParams => ({
    from: { ...from.site, key: fromKey, name: fromKey },
    to: { ...to.site, key: toKey, name: toKey, concurrency: 4 },
    lang: 'en',
    window: { from: new Date('2030-01-01T00:00:00Z'), to: new Date('2030-12-31T23:59:59Z') },
    retire: 'trash',
    onEdit: 'overwrite',
    dryRun: false,
    settledMs: 0,
  });
  const slugs = (s: Site) => (s.sandbox.dump('en').events as EventRecord[]).filter((e) => e.status === 'publish').map((e) => e.slug).sort();

  useSitePair((pair) => ({ source: a, target: b, redis } = pair));

  it("each site ends with its own events and one copy of the other's, pass after pass", async () => {
    await a.client.events.create({ title: 'Concert', description: 'In a', start_date: '2030-05-01 20:00:00', end_date: '2030-05-01 22:00:00' } as never);
    await b.client.events.create({ title: 'Lecture', description: 'In b', start_date: '2030-05-02 10:00:00', end_date: '2030-05-02 11:00:00' } as never);
    const ctx = { redis, prefix };

    const first = await runSiteSync(params(a, 'a', b, 'b'), ctx);
    expect(first.counts.events).toMatchObject({ read: 1, created: 1 });
    const back = await runSiteSync(params(b, 'b', a, 'a'), ctx);
    // Only b's own event goes to a; a's copy on b is not copied back.
    expect(back.counts.events).toMatchObject({ read: 1, created: 1, failed: 0 });
    expect(back.warnings.join('\n')).toMatch(/1 source event\(s\) are copies that the sync a → b wrote/);
    for (let pass = 0; pass < 2; pass++) {
      const there = await runSiteSync(params(a, 'a', b, 'b'), ctx);
      expect(there.counts.events).toMatchObject({ read: 1, created: 0, failed: 0 });
      const again = await runSiteSync(params(b, 'b', a, 'a'), ctx);
      expect(again.counts.events).toMatchObject({ read: 1, created: 0, failed: 0 });
    }
    const aSlug = slugs(a).find((s) => s.startsWith('concert'))!;
    const bSlug = slugs(b).find((s) => s.startsWith('lecture'))!;
    expect(slugs(a)).toEqual([`b-${bSlug}`, aSlug].sort());
    expect(slugs(b)).toEqual([`a-${aSlug}`, bSlug].sort());
  });
});
