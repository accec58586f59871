import { beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { runSiteSync, type SyncParams } from '../../src/runs/sync-site.ts';
import { copiedSlug, DRAFT_VERSION } from '../../src/sources/site/normalize.ts';
import { eventVenue, type EventRecord } from '../../src/api/index.ts';
import type { Language } from '../../src/model/languages.ts';
import { mapConcurrent } from '../../src/util/pool.ts';
import { ledgerKey } from '../../src/write/ledger.ts';
import { testPrefix } from '../support/redis.ts';
import { useSitePair, type TestSite } from '../support/site-pair.ts';
import { seedSite, type Seeded } from '../support/seed.ts';

const LANGS: Language[] = ['en', 'fr', 'de'];
const PER_LANG = 667; // ~2000 events in all

describe('sync from one sandbox site into another', () => {
  let source: TestSite;
  let target: TestSite;
  let redis: Redis;
  const prefix = testPrefix();
  let seeded: Record<string, Seeded>;
  const params = (lang: Language): SyncParams => ({
    from: { ...source.site, key: 'src', name: 'source' },
    to: { ...target.site, concurrency: 8 },
    lang,
    window: { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T23:59:59Z') },
    retire: 'trash',
    onEdit: 'overwrite',
    dryRun: false,
    // Seeded and edited within seconds: let every read modified_utc count as settled.
    settledMs: 0,
  });
  const syncAll = async () => {
    const reports = [];
    for (const lang of LANGS) reports.push(await runSiteSync(params(lang), { redis, prefix }));
    return reports;
  };
  const live = (lang: string) => (target.sandbox.dump(lang).events as EventRecord[]).filter((e) => e.status !== 'trash');

  useSitePair((pair) => ({ source, target, redis } = pair));
  beforeAll(async () => {
    seeded = await seedSite(source.client, LANGS, PER_LANG);
  }, 120_000);

  it('first sync: the target matches the source field by field, with ids mapped', async () => {
    const reports = await syncAll();
    for (const [i, lang] of LANGS.entries()) {
      const r = reports[i]!;
      expect(r.counts.events).toMatchObject({ read: PER_LANG, created: PER_LANG, failed: 0 });
      const targetEvents = new Map(live(lang).map((e) => [e.slug, e]));
      expect(targetEvents.size).toBe(PER_LANG);
      const targetCats = new Map((target.sandbox.dump(lang).categories as { id: number; slug: string; name: string; parent: number }[]).map((c) => [c.id, c]));
      for (const s of seeded[lang]!.events) {
        const t = targetEvents.get(copiedSlug('src', s.slug, s.id));
        expect(t, s.slug).toBeDefined();
        for (const f of ['title', 'description', 'start_date', 'end_date', 'timezone', 'all_day', 'featured', 'sticky', 'show_map', 'show_map_link', 'utc_start_date'] as const) expect(t![f], `${s.slug}.${f}`).toEqual(s[f]);
        expect(t!.cost_details?.values ?? []).toEqual(s.cost_details?.values ?? []);
        expect(t!.categories.map((c) => c.slug)).toEqual(s.categories.map((c) => c.slug));
        expect(t!.tags.map((c) => c.slug)).toEqual(s.tags.map((c) => c.slug));
        const [sv, tv] = [eventVenue(s), eventVenue(t!)];
        expect({ name: tv?.venue, address: tv?.address, city: tv?.city, zip: tv?.zip }).toEqual({ name: sv?.venue, address: sv?.address, city: sv?.city, zip: sv?.zip });
        expect(t!.organizer.map((o) => [o.organizer, o.email])).toEqual(s.organizer.map((o) => [o.organizer, o.email]));
      }
      // The category tree arrived with its parents.
      const jazz = [...targetCats.values()].find((c) => c.name === `Jazz ${lang}`)!;
      const music = targetCats.get(jazz.parent)!;
      expect(music.name).toBe(`Music ${lang}`);
      expect(targetCats.get(music.parent)?.name).toBe(`Culture ${lang}`);
    }
  });

  it('a no-change resync sends zero writes to the target', async () => {
    target.sandbox.resetStats();
    const reports = await syncAll();
    for (const r of reports) expect(r.counts.events.unchanged).toBe(PER_LANG);
    expect(target.sandbox.stats().writes).toBe(0);
    // Terms come from the Redis-kept source→target map, venues and organizers from the ledger:
    // a third run asks the target nothing beyond its checks.
    target.sandbox.resetStats();
    for (const r of await syncAll()) expect(r.counts.categories.unchanged).toBeGreaterThan(0);
    // Nothing but each language run's preflight (src/api/preflight.ts: the site index and the
    // editors-only read that checks the credentials), the one record of its ledger read back
    // (src/write/ledger-on-site.ts) and one listing page of each taxonomy, which says the
    // map's ids are still the target's terms (src/write/terms.ts).
    expect(target.sandbox.stats().byRoute).toEqual({ 'GET (site index)': LANGS.length, 'GET /events': LANGS.length, 'GET /events/:id': LANGS.length, 'GET /categories': LANGS.length, 'GET /tags': LANGS.length });
  });

  it('skips rendering events the source has not modified since they were written (and still notices a venue edit)', async () => {
    const lang: Language = 'fr';
    const e = seeded[lang]!.events[7]!;
    const slug = copiedSlug('src', e.slug, e.id);
    const key = ledgerKey({ site: target.site.key, language: lang, source: 'sync-src' }, 'events', prefix);
    const entry = JSON.parse((await redis.hget(key, slug))!);
    expect(entry.srcMod).toBe(`v${DRAFT_VERSION}:${e.modified_utc}`);
    // A stale fingerprint would force a write if the event were rendered and compared.
    await redis.hset(key, slug, JSON.stringify({ ...entry, fp: 'stale' }));
    const venue = eventVenue(e)!;
    await source.client.venues.update(venue.id, { venue: `${venue.venue} renamed` } as never, { lang });
    target.sandbox.resetStats();
    const r = await runSiteSync(params(lang), { redis, prefix });
    expect(r.counts.events).toMatchObject({ unchanged: PER_LANG, updated: 0 });
    expect(r.counts.venues.updated).toBe(1);
    expect(JSON.parse((await redis.hget(key, slug))!).fp).toBe('stale');
    expect(target.sandbox.stats().writes).toBe(1);
    expect(live(lang).find((x) => x.slug === slug)?.venue).toMatchObject({ venue: `${venue.venue} renamed` });
    // Without a settled modified_utc the event is rendered, and the stale fingerprint costs one write.
    const r2 = await runSiteSync({ ...params(lang), settledMs: 3600_000 }, { redis, prefix });
    expect(r2.counts.events).toMatchObject({ unchanged: PER_LANG - 1, updated: 1 });
  });

  it('after 10 edits, 5 trashed, 5 added and a renamed category: exactly that is written', async () => {
    const lang: Language = 'en';
    const ev = seeded[lang]!.events;
    await mapConcurrent(ev.slice(0, 10), 5, (e) => source.client.events.update(e.id, { title: `${e.title} (edited)`, start_date: e.start_date, end_date: e.end_date, timezone: e.timezone, all_day: e.all_day ?? false, categories: e.categories.map((c) => c.id), tags: e.tags.map((t) => t.id), venue: eventVenue(e)?.id, organizer: e.organizer.map((o) => o.id), featured: e.featured ?? false, cost: e.cost_details?.values?.join(', ') ?? '', website: typeof e.website === 'string' && e.website !== e.url ? e.website : '', show_map: e.show_map ?? true, show_map_link: e.show_map_link ?? true } as never, { lang }));
    await mapConcurrent(ev.slice(20, 25), 5, (e) => source.client.events.delete(e.id, { lang }));
    const added = await mapConcurrent([0, 1, 2, 3, 4], 5, (i) => source.client.events.create({ title: `New ${i}`, start_date: `2027-03-0${i + 1} 10:00:00`, end_date: `2027-03-0${i + 1} 11:00:00`, timezone: 'UTC', slug: `new-${i}` }, { lang }));
    const sport = seeded[lang]!.categories.find((c) => c.name.startsWith('Sport'))!;
    await source.client.categories.update(sport.id, { name: 'Athletics en' }, { lang });

    target.sandbox.resetStats();
    const r = await runSiteSync(params(lang), { redis, prefix });
    expect(r.counts.events).toMatchObject({ updated: 10, created: 5, retired: 5, failed: 0, unchanged: PER_LANG - 10 - 5 });
    expect(r.counts.categories.updated).toBe(1);
    const cats = target.sandbox.dump(lang).categories as { slug: string; name: string }[];
    expect(cats.find((c) => c.slug === sport.slug)?.name).toBe('Athletics en');
    const t = new Map(live(lang).map((e) => [e.slug, e]));
    for (const e of ev.slice(0, 10)) expect(t.get(copiedSlug('src', e.slug, e.id))?.title).toBe(`${e.title} (edited)`);
    for (const e of ev.slice(20, 25)) expect(t.has(copiedSlug('src', e.slug, e.id))).toBe(false);
    for (const e of added) expect(t.has(copiedSlug('src', e.slug, e.id))).toBe(true);
    // Writes: 10 updates, 5 creates (no by-slug miss first: the page's window was listed), 5 trash deletes, 1 term update.
    const s = target.sandbox.stats().byRoute;
    expect(s['POST /events']).toBe(5);
    expect(s['POST /events/by-slug/:slug']).toBe(10);
    expect(s['DELETE /events/:id']).toBe(5);
    expect(target.sandbox.stats().writes).toBe(10 + 5 + 5 + 1);
    // Other languages untouched by all this.
    target.sandbox.resetStats();
    for (const other of ['fr', 'de'] as Language[]) expect((await runSiteSync(params(other), { redis, prefix })).counts.events.unchanged).toBe(PER_LANG);
    expect(target.sandbox.stats().writes).toBe(0);
  });

  it('copies events hidden from listings by fetching the known ones by id', async () => {
    const lang: Language = 'de';
    const e = seeded[lang]!.events[40]!;
    await source.client.events.update(e.id, { title: `${e.title} hidden`, start_date: e.start_date, end_date: e.end_date, timezone: e.timezone, all_day: e.all_day ?? false, hide_from_listings: true, categories: e.categories.map((c) => c.id), venue: eventVenue(e)?.id, organizer: e.organizer.map((o) => o.id) } as never, { lang });
    const r = await runSiteSync(params(lang), { redis, prefix });
    expect(r.counts.events.retired).toBe(0);
    const t = live(lang).find((x) => x.slug === copiedSlug('src', e.slug, e.id));
    expect(t?.title).toBe(`${e.title} hidden`);
    expect(t?.hide_from_listings).toBe(true);
  });
});
