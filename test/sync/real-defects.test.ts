import { describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { runSiteSync, type SyncParams } from '../../src/runs/sync-site.ts';
import { copiedSlug } from '../../src/sources/site/normalize.ts';
import type { EventRecord } from '../../src/api/index.ts';
import { testPrefix } from '../support/redis.ts';
import { useSitePair, type TestSite } from '../support/site-pair.ts';

/** Defects only real sites showed (issue 12), reproduced on sandboxes that now answer like them. */
describe('sync: what real sites revealed', () => {
  let source: TestSite;
  let target: TestSite;
  let redis: Redis;
  const prefix = testPrefix();
  const params = (extra: Partial<SyncParams> = {}): SyncParams => ({
    from: { ...source.site, key: 'src', name: 'source' },
    to: { ...target.site, concurrency: 4 },
    lang: 'en',
    window: { from: new Date('2031-01-01T00:00:00Z'), to: new Date('2031-12-31T23:59:59Z') },
    retire: 'keep',
    onEdit: 'overwrite',
    dryRun: false,
    settledMs: 0,
    ...extra,
  });
  const targetEvent = (srcId: number, slug: string) =>
    (target.sandbox.dump('en').events as EventRecord[]).find((e) => e.slug === copiedSlug('src', slug, srcId));
  /** The text a site stores (what its author typed), read as the sync reads it: wp/v2, context=edit. */
  const stored = async (type: 'tribe_events' | 'tribe_venue' | 'tribe_organizer', id: number) => {
    const res = await fetch(`${target.sandbox.url}/wp/v2/${type}?include=${id}&context=edit`, { headers: { authorization: `Basic ${Buffer.from(`${target.sandbox.user}:${target.sandbox.password}`).toString('base64')}` } });
    const [item] = (await res.json()) as { title: { raw: string }; content: { raw: string }; excerpt: { raw: string } }[];
    return { title: item!.title.raw, description: item!.content.raw, excerpt: item!.excerpt.raw };
  };
  const at = (day: number) => ({ start_date: `2031-03-${String(day).padStart(2, '0')} 19:00:00`, end_date: `2031-03-${String(day).padStart(2, '0')} 21:00:00`, timezone: 'Europe/Berlin' });

  useSitePair((pair) => ({ source, target, redis } = pair));

  it('regression: titles changed on sync (Tom\'s "late" set arrived as Tom’s “late” set)', async () => {
    const typed = { title: `Tom's "late" set -- A & B`, description: `He said "hi" -- it's <b>bold</b> & fine`, excerpt: `Short 'n' "sweet"` };
    const venue = await source.client.venues.create({ venue: `Joe's "Bar" & Grill` });
    const org = await source.client.organizers.create({ organizer: `Ann's "Trio"` });
    const ev = await source.client.events.create({ ...typed, ...at(1), venue: venue.id, organizer: [org.id] } as never);
    // The source renders it the way real sites do: that is what the v1 list hands out.
    expect(ev.title).toBe('Tom&#8217;s &#8220;late&#8221; set &#8212; A &#038; B');

    const report = await runSiteSync(params(), { redis, prefix });
    expect(report.counts.events).toMatchObject({ created: 1, failed: 0 });
    expect(report.warnings).toEqual([]);
    const copied = targetEvent(ev.id, ev.slug!)!;
    // HTML fields pass the shared sanitizer (src/model/html.ts), which writes a bare `&` as the
    // equivalent `&amp;`; plain-text fields keep every character as typed.
    expect(await stored('tribe_events', copied.id)).toEqual({ ...typed, description: typed.description.replace('& fine', '&amp; fine') });
    // And the target renders it exactly as the source does.
    // (`&#038;` and `&amp;` are the same character in HTML.)
    const amp = (html: string | undefined) => html?.replaceAll('&#038;', '&amp;');
    expect([copied.title, amp(copied.description), copied.excerpt]).toEqual([ev.title, amp(ev.description), ev.excerpt]);
    expect((await stored('tribe_venue', (copied.venue as { id: number }).id)).title).toBe(`Joe's "Bar" & Grill`);
    expect((await stored('tribe_organizer', copied.organizer[0]!.id)).title).toBe(`Ann's "Trio"`);

    // A resync finds nothing to write: the raw text is stable.
    const again = await runSiteSync(params(), { redis, prefix });
    expect(again.counts.events).toMatchObject({ unchanged: 1, updated: 0, created: 0 });
  });

  it('without the raw route (no edit rights at the source) the rendered text is kept, decoded, with a warning', async () => {
    const ev = await source.client.events.create({ title: `Anon's "view"`, ...at(2) } as never);
    const anonymousSource = { ...source.site, key: 'src', name: 'source', connection: { ...source.site.connection, auth: undefined } };
    const report = await runSiteSync(params({ from: anonymousSource }), { redis, prefix: `${prefix}-anon` });
    expect(report.warnings.join('\n')).toMatch(/not as typed: GET .*\/wp\/v2\/tribe_events → 401 rest_forbidden_context/);
    expect((await stored('tribe_events', targetEvent(ev.id, ev.slug!)!.id)).title).toBe('Anon’s “view”');
  });

  it('regression: a category renamed on the source never reached the target (update sent description "")', async () => {
    const cat = await source.client.categories.create({ name: 'Konzerte', slug: 'konzerte' });
    const ev = await source.client.events.create({ title: 'Categorized', ...at(3), categories: [cat.id] } as never);
    await runSiteSync(params(), { redis, prefix });
    await source.client.categories.update(cat.id, { name: 'Konzerte & Lesungen' });
    await source.client.events.update(ev.id, { title: 'Categorized', ...at(3), categories: [cat.id] } as never);

    const report = await runSiteSync(params(), { redis, prefix });
    expect(report.counts.categories.failed).toBe(0);
    const cats = target.sandbox.dump('en').categories as { slug: string; name: string; description: string }[];
    expect(cats.find((c) => c.slug === 'konzerte')?.name).toBe('Konzerte & Lesungen');
  });

  it('a description emptied at the source stays on the target, reported (the site cannot clear one)', async () => {
    const cat = await source.client.categories.create({ name: 'Lesungen', slug: 'lesungen', description: 'Old words' });
    await source.client.events.create({ title: 'Reading', ...at(4), categories: [cat.id] } as never);
    await runSiteSync(params(), { redis, prefix });
    // The v1 API cannot empty it, but takes a blank one (as real sites do): no text left either way.
    await source.client.categories.update(cat.id, { name: 'Lesungen', description: ' ' });
    const report = await runSiteSync(params(), { redis, prefix });
    const item = report.items.find((i) => i.kind === 'categories' && i.slug === 'lesungen');
    expect(item).toMatchObject({ outcome: 'unchanged' });
    expect(item?.reason).toMatch(/cannot clear/);
    expect((target.sandbox.dump('en').categories as { slug: string; description: string }[]).find((c) => c.slug === 'lesungen')?.description).toBe('Old words');
  });

  it('regression: sync overwrote the target\'s own "Stadtpark" venue with the source\'s fields', async () => {
    const own = await target.client.venues.create({ venue: 'Stadtpark', address: 'Am Teich 1', city: 'Hamburg', phone: '040 1234' });
    const ownOrg = await target.client.organizers.create({ organizer: 'Kulturamt', email: 'kultur@target.example' });
    const srcVenue = await source.client.venues.create({ venue: 'Stadtpark', address: 'Parkweg 9', city: 'Wien' });
    const srcOrg = await source.client.organizers.create({ organizer: 'Kulturamt', email: 'amt@source.example' });
    const ev = await source.client.events.create({ title: 'Open air', ...at(5), venue: srcVenue.id, organizer: [srcOrg.id] } as never);

    const report = await runSiteSync(params(), { redis, prefix });
    const copied = targetEvent(ev.id, ev.slug!)!;
    expect([(copied.venue as { id: number }).id, copied.organizer.map((o) => o.id)]).toEqual([own.id, [ownOrg.id]]);
    const venue = await target.client.venues.get(own.id);
    expect([venue.address, venue.city, venue.phone]).toEqual(['Am Teich 1', 'Hamburg', '040 1234']);
    expect((await target.client.organizers.get(ownOrg.id)).email).toBe('kultur@target.example');
    expect(report.linked).toEqual(expect.arrayContaining([{ kind: 'venues', id: own.id, name: 'Stadtpark' }, { kind: 'organizers', id: ownOrg.id, name: 'Kulturamt' }]));

    // Still linked, still untouched, on the next run after a source edit.
    await source.client.venues.update(srcVenue.id, { venue: 'Stadtpark', address: 'Parkweg 10', city: 'Wien' });
    await runSiteSync(params(), { redis, prefix });
    expect((await target.client.venues.get(own.id)).address).toBe('Am Teich 1');

    // Asked for: --adopt-linked overwrite writes the source's fields.
    await runSiteSync(params({ adoptLinked: 'overwrite' }), { redis, prefix });
    const overwritten = await target.client.venues.get(own.id);
    expect([overwritten.address, overwritten.city]).toEqual(['Parkweg 10', 'Wien']);
  });
});
