import { describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { runSiteSync, type SyncParams } from '../../src/runs/sync-site.ts';
import { copiedSlug } from '../../src/sources/site/normalize.ts';
import type { EventRecord } from '../../src/api/index.ts';
import { testPrefix } from '../support/redis.ts';
import { testSite } from '../support/site.ts';
import { useSitePair, type TestSite } from '../support/site-pair.ts';

/**
 * Found syncing one real TEC site into another: an event hidden from listings when it was created
 * never reached the target. The v1 list leaves hidden events out, and the sync looked up by id
 * only the hidden events it had copied before. It now finds the others in WordPress core's list
 * of the source's events (test/contract/wp-v2-hidden.test.ts), reading each unlisted event by id
 * once, and again only once it has changed.
 */
describe('regression: an event hidden from listings before its first sync was never copied', () => {
  let source: TestSite;
  let target: TestSite;
  let redis: Redis;
  const params = (over: Partial<SyncParams> = {}): SyncParams => ({
    from: { ...source.site, key: 'src', name: 'source' },
    to: { ...target.site, concurrency: 4 },
    lang: 'en',
    window: { from: new Date('2030-01-01T00:00:00Z'), to: new Date('2030-12-31T23:59:59Z') },
    retire: 'trash',
    onEdit: 'overwrite',
    dryRun: false,
    settledMs: 0,
    ...over,
  });
  const byId = () => source.sandbox.stats().byRoute['GET /events/:id'] ?? 0;

  useSitePair((pair) => ({ source, target, redis } = pair));

  it('a hidden event is copied (still hidden); an unlisted event that is not hidden is read once', async () => {
    const ctx = { redis, prefix: testPrefix() };
    await source.client.events.create({ title: 'Open day', description: 'y', start_date: '2030-04-02 10:00:00', end_date: '2030-04-02 12:00:00' } as never);
    // Listed by core, outside the window: read by id on the first run only.
    await source.client.events.create({ title: 'Next year', description: 'z', start_date: '2031-06-01 10:00:00', end_date: '2031-06-01 12:00:00' } as never);
    // Hidden but in a category the sync does not copy.
    const other = await source.client.categories.create({ name: 'Other' } as never);
    await source.client.events.create({ title: 'Hidden elsewhere', description: 'w', start_date: '2030-04-03 10:00:00', end_date: '2030-04-03 12:00:00', hide_from_listings: true, categories: [other.id] } as never);
    const music = await source.client.categories.create({ name: 'Music' } as never);
    const hidden = await source.client.events.create({ title: 'Members only', description: 'x', start_date: '2030-04-01 19:00:00', end_date: '2030-04-01 21:00:00', hide_from_listings: true, categories: [music.id] } as never);
    expect(hidden.hide_from_listings).toBe(true);

    const first = await runSiteSync(params({ categories: ['music'] }), ctx);
    expect(first.counts.events).toMatchObject({ read: 1, created: 1, failed: 0 });
    const copy = (target.sandbox.dump('en').events as EventRecord[]).find((e) => e.slug === copiedSlug('src', hidden.slug!, hidden.id));
    expect(copy).toBeDefined();
    expect((await target.client.events.get(copy!.id)).hide_from_listings).toBe(true);

    const all = await runSiteSync(params(), ctx);
    expect(all.counts.events).toMatchObject({ read: 3, created: 2, unchanged: 1, failed: 0 });

    source.sandbox.resetStats();
    const again = await runSiteSync(params(), ctx);
    expect(again.counts.events).toMatchObject({ read: 3, created: 0, updated: 0, unchanged: 3, failed: 0 });
    // The two hidden ones copied before (by their ledger entries), not "Next year" again.
    expect(byId()).toBe(2);
  });
  it('many unlisted events (a window narrower than the source\'s upcoming events): told apart by the v1 list, not read one by one', { timeout: 60_000 }, async () => {
    const from = await testSite();
    try {
      for (let i = 0; i < 150; i++) await from.client.events.create({ title: `Later ${i}`, start_date: '2031-02-01 10:00:00', end_date: '2031-02-01 11:00:00' } as never);
      await from.client.events.create({ title: 'Hidden later', start_date: '2031-03-01 10:00:00', end_date: '2031-03-01 11:00:00', hide_from_listings: true } as never);
      const hidden = await from.client.events.create({ title: 'Hidden now', start_date: '2030-03-01 10:00:00', end_date: '2030-03-01 11:00:00', hide_from_listings: true } as never);
      const ctx = { redis, prefix: testPrefix() };
      const first = await runSiteSync(params({ from: { ...from.site, key: 'wide', name: 'wide' } }), ctx);
      expect(first.counts.events).toMatchObject({ read: 1, created: 1, failed: 0 });
      expect((target.sandbox.dump('en').events as EventRecord[]).some((e) => e.slug === copiedSlug('wide', hidden.slug!, hidden.id))).toBe(true);
      // The two hidden ones are read by id; the 150 shown past the window come from list pages.
      expect(from.sandbox.stats().byRoute['GET /events/:id'] ?? 0).toBe(2);
    } finally {
      await from.close();
    }
  });
});
