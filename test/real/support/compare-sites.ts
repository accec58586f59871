import { expect } from 'vitest';
import { siteUtc, type Json } from './site.ts';

const names = (terms: Json[] | undefined) => (terms ?? []).map((t) => t.name).sort();
const orgs = (e: Json) => (Array.isArray(e.organizer) ? e.organizer : []) as Json[];
const venueOf = (e: Json) => (e.venue && !Array.isArray(e.venue) ? (e.venue as Json) : undefined);

/**
 * Site B holds site A's events field by field: title (exactly as typed), description, instants,
 * zone, all-day, venue and organizers (by their fields), categories and tags. Ids are remapped: each
 * source venue/organizer maps to one target record, consistently across events.
 */
export function expectSameEvents(source: Json[], target: Json[]): void {
  expect(target.map((e) => e.title).sort()).toEqual(source.map((e) => e.title).sort());
  const venueIds = new Map<number, number>();
  const orgIds = new Map<number, number>();
  for (const s of source) {
    const t = target.find((x) => x.title === s.title && x.utc_start_date === s.utc_start_date);
    expect(t, `${s.title} @ ${s.utc_start_date} on the target`).toBeDefined();
    const what = `${s.title} @ ${s.utc_start_date}`;
    expect([t!.all_day, t!.timezone, t!.start_date, t!.end_date, siteUtc(t!.utc_end_date)], what).toEqual([s.all_day, s.timezone, s.start_date, s.end_date, siteUtc(s.utc_end_date)]);
    // The shared sanitizer writes a bare `&` as `&amp;`, which WordPress renders as such, while the
    // source renders its own as `&#038;`: the same character in HTML.
    const amp = (html: unknown) => String(html ?? '').replaceAll('&#038;', '&amp;');
    expect(amp(t!.description), what).toBe(amp(s.description));
    expect(names(t!.categories), what).toEqual(names(s.categories));
    expect(names(t!.tags), what).toEqual(names(s.tags));
    const sv = venueOf(s);
    const tv = venueOf(t!);
    expect(tv ? [tv.venue, tv.address, tv.city, tv.zip] : undefined, what).toEqual(sv ? [sv.venue, sv.address, sv.city, sv.zip] : undefined);
    if (sv && tv) {
      if (!venueIds.has(sv.id)) venueIds.set(sv.id, tv.id);
      expect(tv.id, `${what}: venue ${sv.id} maps to one target venue`).toBe(venueIds.get(sv.id));
    }
    expect(orgs(t!).map((o) => [o.organizer, o.email]), what).toEqual(orgs(s).map((o) => [o.organizer, o.email]));
    orgs(s).forEach((o, i) => {
      if (!orgIds.has(o.id)) orgIds.set(o.id, orgs(t!)[i].id);
      expect(orgs(t!)[i].id, `${what}: organizer ${o.id} maps to one target organizer`).toBe(orgIds.get(o.id));
    });
  }
  expect(new Set(venueIds.values()).size).toBe(venueIds.size);
  expect(new Set(orgIds.values()).size).toBe(orgIds.size);
}
