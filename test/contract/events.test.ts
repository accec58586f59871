import { describe, expect, it } from 'vitest';
import {
  ApiError,
  NotFoundError,
  SlugMismatchError,
  eventVenue,
  type CalendarClient,
  type EventRecord,
} from '../../src/api/index.ts';
import { WINDOW, caught, eventBody, isReal, useTarget, type Target } from './harness.ts';

describe('events', () => {
  let t: Target;
  let c: CalendarClient;
  useTarget((target) => {
    t = target;
    c = target.client();
  });

  const created = async (body: Parameters<CalendarClient['events']['create']>[0]): Promise<EventRecord> => {
    const rec = await c.events.create(body);
    t.track('events', rec.id);
    return rec;
  };

  it('create returns the full record with the slug that was sent', async () => {
    const slug = `${t.prefix}-create`;
    const rec = await created(eventBody(`${t.prefix} create`, 3, { slug, cost: '15', description: 'Some text' }));
    expect(rec.id).toBeGreaterThan(0);
    expect(rec.slug).toBe(slug);
    expect(rec.title).toBe(`${t.prefix} create`);
    expect(rec.start_date).toBe('2031-01-03 10:00:00');
    expect(rec.end_date).toBe('2031-01-03 11:00:00');
    expect(rec.timezone).toBe('Europe/Paris');
    // Quirks the schema normalizes or tolerates (real sites answer so): no venue is `[]`, organizer is an array.
    expect(eventVenue(rec)).toBeNull();
    expect(rec.organizer).toEqual([]);
    expect(rec.cost_details?.values).toEqual(['15']);
  });

  it('get, getBySlug and findBySlug read the same record', async () => {
    const slug = `${t.prefix}-read`;
    const rec = await created(eventBody(`${t.prefix} read`, 4, { slug }));
    expect((await c.events.get(rec.id)).slug).toBe(slug);
    expect((await c.events.getBySlug(slug)).id).toBe(rec.id);
    expect((await c.events.findBySlug(slug))?.id).toBe(rec.id);
    expect(await c.events.findBySlug(`${t.prefix}-absent`)).toBeNull();
    const err = await caught(() => c.events.getBySlug(`${t.prefix}-absent`));
    expect(err).toBeInstanceOf(NotFoundError);
  });

  it('update by id and by slug replace the record and keep id and slug', async () => {
    const slug = `${t.prefix}-update`;
    const rec = await created(eventBody(`${t.prefix} update`, 5, { slug, featured: true }));
    expect(rec.featured).toBe(true);
    const byId = await c.events.update(rec.id, eventBody(`${t.prefix} update 2`, 6, { featured: false }));
    expect(byId.id).toBe(rec.id);
    expect(byId.title).toBe(`${t.prefix} update 2`);
    expect(byId.start_date).toBe('2031-01-06 10:00:00');
    expect(byId.featured).toBe(false);
    const bySlug = await c.events.updateBySlug(slug, eventBody(`${t.prefix} update 3`, 7, { sticky: true }));
    expect(bySlug.id).toBe(rec.id);
    expect(bySlug.slug).toBe(slug);
    expect(bySlug.title).toBe(`${t.prefix} update 3`);
    expect(bySlug.sticky).toBe(true);
  });

  it('links a venue and organizers by id; eventVenue reads the single-object form', async () => {
    const venue = await c.venues.create({ venue: `${t.prefix} hall`, city: 'Lyon' });
    t.track('venues', venue.id);
    const org = await c.organizers.create({ organizer: `${t.prefix} org`, email: `${t.prefix}@example.org` });
    t.track('organizers', org.id);
    const rec = await created(eventBody(`${t.prefix} linked`, 8, { venue: venue.id, organizer: [org.id] }));
    expect(eventVenue(rec)?.id).toBe(venue.id);
    expect(rec.organizer.map((o) => o.id)).toEqual([org.id]);
  });

  it('lists a window page by page and iterate walks every page in order', async () => {
    const tag = `${t.prefix}pg`;
    const ids: number[] = [];
    for (let day = 10; day < 17; day++) ids.push((await created(eventBody(`${tag} ${day}`, day))).id);
    const first = await c.events.list({ ...WINDOW, search: tag, per_page: 3 });
    expect(first.total).toBe(7);
    expect(first.totalPages).toBe(3);
    expect(first.page).toBe(1);
    expect(first.items.map((e) => e.id)).toEqual(ids.slice(0, 3));
    const third = await c.events.list({ ...WINDOW, search: tag, per_page: 3, page: 3 });
    expect(third.items.map((e) => e.id)).toEqual(ids.slice(6));

    t.sandbox?.resetStats();
    const seen: number[] = [];
    for await (const e of c.events.iterate({ ...WINDOW, search: tag, per_page: 2 }, { concurrency: 3 })) seen.push(e.id);
    expect(seen).toEqual(ids);
    if (t.sandbox) expect(t.sandbox.stats().byRoute['GET /events']).toBe(4);
  });

  it('iterate stops fetching when the consumer stops', async () => {
    const tag = `${t.prefix}pg`;
    const seen: number[] = [];
    for await (const e of c.events.iterate({ ...WINDOW, search: tag, per_page: 1 }, { concurrency: 2 })) {
      seen.push(e.id);
      if (seen.length === 2) break;
    }
    expect(seen).toHaveLength(2);
  });

  it('an empty list is one page with no items', async () => {
    const page = await c.events.list({ ...WINDOW, search: `${t.prefix}nothing` });
    expect(page).toMatchObject({ items: [], total: 0, totalPages: 0 });
    const all: unknown[] = [];
    for await (const e of c.events.iterate({ ...WINDOW, search: `${t.prefix}nothing` })) all.push(e);
    expect(all).toEqual([]);
  });

  it('a page past the last one is ApiError 404 event-archive-page-not-found from list()', async () => {
    const err = await caught(() => c.events.list({ ...WINDOW, search: `${t.prefix}pg`, per_page: 50, page: 5 }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).not.toBeInstanceOf(NotFoundError);
    expect((err as ApiError).status).toBe(404);
    expect((err as ApiError).code).toBe('event-archive-page-not-found');
  });

  it('delete trashes the event; a second delete is 410 event-is-in-trash', async () => {
    const slug = `${t.prefix}-del`;
    const rec = await created(eventBody(`${t.prefix} del`, 20, { slug }));
    const trashed = await c.events.delete(rec.id);
    expect(trashed.id).toBe(rec.id);
    expect(trashed.status).toBe('trash');
    expect(trashed.slug).toBe(`${slug}__trashed`);
    const again = await caught(() => c.events.delete(rec.id));
    expect(again).toBeInstanceOf(ApiError);
    expect((again as ApiError).status).toBe(410);
    expect((again as ApiError).code).toBe('event-is-in-trash');
    // The slug is freed; the trashed record is still known under `<slug>__trashed`.
    expect(await c.events.findBySlug(slug)).toBeNull();
    expect(await c.events.isTrashed(slug)).toBe(true);
    expect(await c.events.isTrashed(`${t.prefix}-never-existed`)).toBe(false);
  });

  it('a trashed event updated by id with status publish and its slug is back: same id, same slug, published (how calsync restores a retired event that returns)', async () => {
    const slug = `${t.prefix}-back`;
    const rec = await created(eventBody(`${t.prefix} back`, 22, { slug }));
    await c.events.delete(rec.id);
    const back = await c.events.update(rec.id, eventBody(`${t.prefix} back again`, 22, { slug, status: 'publish' }));
    expect([back.id, back.status, back.slug, back.title]).toEqual([rec.id, 'publish', slug, `${t.prefix} back again`]);
    expect((await c.events.findBySlug(slug))?.id).toBe(rec.id);
    // Set to draft (the draft retire policy) and back the same way.
    await c.events.update(rec.id, eventBody(`${t.prefix} back again`, 22, { slug, status: 'draft' }));
    const again = await c.events.update(rec.id, eventBody(`${t.prefix} back again`, 22, { slug, status: 'publish' }));
    expect([again.id, again.status, again.slug]).toEqual([rec.id, 'publish', slug]);
  });

  it('a trashed event reads as 403 (6.17.2) or status trash (6.17.1), never as a live record', async () => {
    const rec = await created(eventBody(`${t.prefix} trashed read`, 21));
    await c.events.delete(rec.id);
    try {
      const read = await c.events.get(rec.id);
      expect(read.status).toBe('trash');
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect(err).not.toBeInstanceOf(NotFoundError);
      expect((err as ApiError).status).toBe(403);
    }
    const anon = await caught(() => t.anonymous().events.get(rec.id));
    expect((anon as ApiError).status).toBe(403);
  });

  it('deleteBySlug trashes by slug; the slug is then not found', async () => {
    const slug = `${t.prefix}-delslug`;
    const rec = await created(eventBody(`${t.prefix} delslug`, 22, { slug }));
    const trashed = await c.events.deleteBySlug(slug);
    expect(trashed.id).toBe(rec.id);
    expect(trashed.status).toBe('trash');
    expect(await caught(() => c.events.deleteBySlug(slug))).toBeInstanceOf(NotFoundError);
  });

  it('a create whose slug is taken throws SlugMismatchError carrying the created record', async () => {
    const slug = `${t.prefix}-taken`;
    const first = await created(eventBody(`${t.prefix} taken`, 23, { slug }));
    const err = await caught(() => c.events.create(eventBody(`${t.prefix} taken again`, 23, { slug })));
    expect(err).toBeInstanceOf(SlugMismatchError);
    const mismatch = err as SlugMismatchError;
    expect(mismatch.expected).toBe(slug);
    expect(mismatch.actual).toBe(`${slug}-2`);
    const dup = mismatch.record as EventRecord;
    t.track('events', dup.id);
    expect(dup.id).not.toBe(first.id);
  });

  it('hide_from_listings events are readable by id but not listed', async () => {
    const rec = await created(eventBody(`${t.prefix}hidden`, 24, { hide_from_listings: true }));
    expect((await c.events.get(rec.id)).hide_from_listings).toBe(true);
    const page = await c.events.list({ ...WINDOW, search: `${t.prefix}hidden` });
    expect(page.items.map((e) => e.id)).not.toContain(rec.id);
  });

  it('password option goes to by-id reads and deletes', async () => {
    const rec = await created(eventBody(`${t.prefix} pw`, 25));
    expect((await c.events.get(rec.id, { password: 'irrelevant' })).id).toBe(rec.id);
    expect((await c.events.update(rec.id, { ...eventBody(`${t.prefix} pw`, 25), password: 'irrelevant' })).id).toBe(rec.id);
    expect((await c.events.delete(rec.id, { password: 'irrelevant' })).status).toBe('trash');
  });

  it.skipIf(isReal)('each language is its own set of records in the sandbox', async () => {
    const slug = `${t.prefix}-lang`;
    const fr = await c.events.upsertBySlug(slug, eventBody(`${t.prefix} fr`, 26), { lang: 'fr' });
    const de = await c.events.upsertBySlug(slug, eventBody(`${t.prefix} de`, 26), { lang: 'de' });
    expect(fr.created && de.created).toBe(true);
    expect(fr.record.id).not.toBe(de.record.id);
    expect((await c.events.getBySlug(slug, { lang: 'fr' })).title).toBe(`${t.prefix} fr`);
    expect(await c.events.findBySlug(slug, { lang: 'it' })).toBeNull();
    const frClient = t.client({ language: 'fr' });
    expect((await frClient.events.getBySlug(slug)).id).toBe(fr.record.id);
    // A language segment in the REST root selects the same records.
    const origin = new URL(t.url).origin;
    const frRoot = t.client({ restRoot: `${origin}/fr/wp-json` });
    expect((await frRoot.events.getBySlug(slug)).id).toBe(fr.record.id);
  });

  it.skipIf(isReal)('a REST root without pretty permalinks (?rest_route=) works for reads and writes', async () => {
    const origin = new URL(t.url).origin;
    const plain = t.client({ restRoot: `${origin}/index.php?rest_route=` });
    const slug = `${t.prefix}-plain`;
    const { record, created } = await plain.events.upsertBySlug(slug, eventBody(`${t.prefix} plain`, 27));
    t.track('events', record.id);
    expect(created).toBe(true);
    expect((await plain.events.get(record.id)).slug).toBe(slug);
    const page = await plain.events.list({ ...WINDOW, search: `${t.prefix} plain` });
    expect(page.items.map((e) => e.id)).toEqual([record.id]);
  });
});
