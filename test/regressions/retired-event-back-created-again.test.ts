import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { runSiteSync, type SyncParams } from '../../src/runs/sync-site.ts';
import type { EventRecord } from '../../src/api/index.ts';
import type { RetirePolicy } from '../../src/write/retire.ts';
import { testPrefix, testRedis } from '../support/redis.ts';
import { feedServer, testSite } from '../support/site.ts';

const vevent = (i: number) => ['BEGIN:VEVENT', `UID:back-${i}@example.org`, `SUMMARY:Back ${i}`, `DTSTART:2027060${i}T180000Z`, 'DURATION:PT1H', 'END:VEVENT'];
const feedOf = (ids: number[]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync test//EN', ...ids.flatMap(vevent), 'END:VCALENDAR', ''].join('\r\n');

/**
 * Found by a helper syncing two real TEC sites, and the same for any import: an event calsync
 * retired (trashed, or set to draft) that came back to its source was created again as a new
 * record under a new site id, the old one left in the trash; every flap of a feed added one. The
 * retirement is now recorded with the event's site id (Ledger.remove), and the event coming back is
 * written again under that id and slug (SiteWriter.restore).
 */
describe('regression: an event retired and back in its source was created again beside the trashed one', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let feed: Awaited<ReturnType<typeof feedServer>>;
  let redis: Redis;
  beforeAll(async () => {
    env = await testSite();
    feed = await feedServer(feedOf([1, 2, 3]));
    redis = testRedis();
  });
  afterAll(async () => {
    await redis.quit();
    await feed.close();
    await env.close();
  });

  // A draft keeps its slug, so the site's listings show it taken and the write by slug finds it (as
  // before the fix); a trashed event's slug is `<slug>__trashed`, and only its recorded id finds it.
  it.each<[RetirePolicy, RegExp | undefined]>([
    ['trash', /^restored: retired on \d{4}-\d{2}-\d{2} \(no longer in the source; moved to trash\), back in the source, written again as site id \d+$/],
    ['draft', undefined],
  ])('retire %s: the same record comes back, published, and no second one is made', async (retire, restored) => {
    const sourceKey = `back-${retire}`;
    const params = (): IcsImportParams => ({
      location: feed.url, site: env.site, sourceKey, lang: 'en', window: { from: new Date('2027-01-01'), to: new Date('2027-12-31') }, retire,
      onEdit: 'overwrite', defaultTimezone: 'UTC', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allow: [new URL(feed.url).host], maxRetireShare: 1,
    });
    const ctx = { redis, prefix: testPrefix() };
    const events = () => (env.sandbox.dump('en').events as Array<{ id: number; slug: string; status: string; title: string }>).filter((e) => e.slug.startsWith(sourceKey));
    feed.set(feedOf([1, 2, 3]));
    expect((await runIcsImport(params(), ctx)).counts.events).toMatchObject({ created: 3 });
    const before = new Map(events().map((e) => [e.title, e]));

    feed.set(feedOf([1, 3]));
    const gone = await runIcsImport(params(), ctx);
    expect(gone.counts.events).toMatchObject({ retired: 1 });
    expect(events().find((e) => e.title === 'Back 2')?.status).toBe(retire);

    feed.set(feedOf([1, 2, 3]));
    const back = await runIcsImport(params(), ctx);
    expect(back.counts.events).toMatchObject({ created: 0, updated: 1, unchanged: 2, failed: 0 });
    const item = back.items.find((i) => i.kind === 'events' && i.outcome === 'updated');
    expect(item?.siteId).toBe(before.get('Back 2')?.id);
    expect(item?.reason).toEqual(restored && expect.stringMatching(restored));
    if (restored) expect(item?.reason).toContain(`site id ${before.get('Back 2')?.id}`);
    // Three records, as before: the second one published again under its id and slug.
    const now = events();
    expect(now).toHaveLength(3);
    expect(now.find((e) => e.title === 'Back 2')).toMatchObject({ id: before.get('Back 2')?.id, slug: before.get('Back 2')?.slug, status: 'publish' });

    // The next run finds it as written.
    expect((await runIcsImport({ ...params(), refreshAfterMs: 0 }, ctx)).counts.events).toMatchObject({ unchanged: 3, created: 0, updated: 0 });
  });
  it('sync: an event trashed at the source and restored there gets its copy back on the target', async () => {
    const target = await testSite();
    try {
      const params: SyncParams = {
        from: { ...env.site, key: 'src', name: 'src' }, to: { ...target.site, key: 'dst', name: 'dst' }, lang: 'en',
        window: { from: new Date('2030-01-01T00:00:00Z'), to: new Date('2030-12-31T23:59:59Z') }, retire: 'trash', onEdit: 'overwrite', dryRun: false, settledMs: 0, maxRetireShare: 1,
      };
      const ctx = { redis, prefix: testPrefix() };
      const ids: number[] = [];
      for (const day of [1, 2, 3]) ids.push((await env.client.events.create({ title: `Synced ${day}`, start_date: `2030-05-0${day} 20:00:00`, end_date: `2030-05-0${day} 22:00:00` } as never)).id);
      const copies = () => (target.sandbox.dump('en').events as EventRecord[]).map((e) => [e.title, e.id, e.status]).sort();
      expect((await runSiteSync(params, ctx)).counts.events).toMatchObject({ created: 3 });
      const first = copies();
      await env.client.events.delete(ids[1]!);
      expect((await runSiteSync(params, ctx)).counts.events).toMatchObject({ retired: 1 });
      await env.client.events.update(ids[1]!, { title: 'Synced 2', start_date: '2030-05-02 20:00:00', end_date: '2030-05-02 22:00:00', status: 'publish' } as never);
      const back = await runSiteSync(params, ctx);
      expect(back.counts.events).toMatchObject({ created: 0, updated: 1, failed: 0 });
      expect(copies()).toEqual(first);
    } finally {
      await target.close();
    }
  });
});
