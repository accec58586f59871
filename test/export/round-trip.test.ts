import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportIcsText } from '../../src/export/index.ts';
import { runIcsImport } from '../../src/runs/import-ics.ts';
import { eventVenue, type EventRecord } from '../../src/api/index.ts';
import type { Language } from '../../src/model/languages.ts';
import { feedServer, testSite } from '../support/site.ts';

/** What must survive export → calsync's own import: title, instants, zone, all-day span, venue, organizers, categories. */
function essence(e: EventRecord) {
  return [
    e.title,
    ...(e.all_day ? [`all-day ${e.start_date.slice(0, 10)}..${e.end_date.slice(0, 10)}`] : [e.utc_start_date, e.utc_end_date, e.timezone]),
    eventVenue(e)?.venue ?? '',
    e.organizer.map((o) => o.organizer).sort().join('|'),
    e.categories.map((c) => c.name).sort().join('|'),
  ].join(' ¦ ');
}

describe('round trip: export a sandbox site to ICS, import it with calsync into an empty site', () => {
  let from: Awaited<ReturnType<typeof testSite>>;
  let to: Awaited<ReturnType<typeof testSite>>;
  const LANGS: Language[] = ['en', 'fr'];
  beforeAll(async () => {
    from = await testSite();
    to = await testSite();
    for (const lang of LANGS) {
      const c = from.client;
      const cat = await c.categories.create({ name: `Music ${lang}` }, { lang });
      const venue = await c.venues.create({ venue: `Town Hall ${lang}`, address: '1 Main St', city: 'Springfield', zip: '12345', country: 'Germany' } as never, { lang });
      const org = await c.organizers.create({ organizer: `Arts Council ${lang}`, email: `arts-${lang}@example.org` } as never, { lang });
      const base = { categories: [cat.id], venue: venue.id, organizer: [org.id] };
      await c.events.create({ title: `Concert ${lang}`, start_date: '2027-03-27 20:00:00', end_date: '2027-03-28 01:00:00', timezone: 'Europe/Berlin', ...base } as never, { lang }); // across the DST change
      await c.events.create({ title: `Festival ${lang}`, start_date: '2027-07-10 00:00:00', end_date: '2027-07-12 23:59:59', timezone: 'Europe/Berlin', all_day: true, ...base } as never, { lang });
      await c.events.create({ title: `Talk ${lang}`, start_date: '2027-05-05 09:00:00', end_date: '2027-05-05 10:30:00', timezone: 'America/New_York', ...base } as never, { lang });
      await c.events.create({ title: `Day out ${lang}`, start_date: '2027-09-01 00:00:00', end_date: '2027-09-01 23:59:59', timezone: 'Asia/Tokyo', all_day: true, categories: [cat.id] } as never, { lang });
    }
  });
  afterAll(async () => {
    await from.close();
    await to.close();
  });

  it.each(LANGS)('%s: titles, instants, zones, all-day spans, venues, organizers and categories are equal', async (lang) => {
    const ics = await exportIcsText({ name: 'rt', connection: from.site.connection, siteKey: 'from', lang, window: { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T23:59:59Z') } });
    // Per-language feeds hold exactly that language's events.
    expect(ics).toContain(`Concert ${lang}`);
    for (const other of LANGS.filter((l) => l !== lang)) expect(ics).not.toContain(`Concert ${other}`);
    const feed = await feedServer(ics);
    try {
      const r = await runIcsImport({ location: feed.url, site: to.site, sourceKey: `rt-${lang}`, lang, window: { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T23:59:59Z') }, retire: 'keep', onEdit: 'overwrite', defaultTimezone: 'UTC', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allow: [new URL(feed.url).host] });
      expect(r.counts.events).toMatchObject({ created: 4, failed: 0 });
    } finally {
      await feed.close();
    }
    const src = (from.sandbox.dump(lang).events as EventRecord[]).map(essence).sort();
    const dst = (to.sandbox.dump(lang).events as EventRecord[]).map(essence).sort();
    expect(dst).toEqual(src);
  });
});
