import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSite, type TestSite } from './helpers.ts';

let site: TestSite;
beforeAll(async () => {
  site = await openSite();
});
afterAll(async () => {
  await site.sb.close();
});

describe('venues', () => {
  it('creates venues in the live shape, empty fields left out', async () => {
    const r = await site.call('POST', '/venues', { body: { venue: 'Standalone Venue', address: '2 Side St', city: 'Shelbyville', state: 'IL', website: 'https://example.org/v' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ venue: 'Standalone Venue', slug: 'standalone-venue', stateprovince: 'IL', show_map: true, show_map_link: true, author: '1' });
    expect(r.body).not.toHaveProperty('zip');
    expect(r.body).not.toHaveProperty('description');
    expect(r.body).not.toHaveProperty('json_ld');
    const single = await site.call('GET', `/venues/${r.body.id}`, { auth: false });
    expect(single.body.json_ld).toMatchObject({ '@type': 'Place', name: 'Standalone Venue' });
  });

  it('requires the name, refuses a JSON boolean show_map and unknown ids', async () => {
    const missing = await site.call('POST', '/venues', { body: { city: 'Nowhere' } });
    expect([missing.status, missing.body.data.params]).toEqual([400, ['venue']]);
    const bool = await site.call('POST', '/venues', { body: { venue: 'Bool Hall', show_map: true } });
    expect([bool.status, bool.body.data.params]).toEqual([400, { show_map: 'Invalid parameter.' }]);
    const str = await site.call('POST', '/venues', { body: { venue: 'String Hall', show_map: 'false' } });
    expect([str.status, str.body.show_map]).toEqual([201, false]);
    const unknown = await site.call('GET', '/venues/999999');
    expect([unknown.status, unknown.body.data.params]).toEqual([400, { id: 'Invalid parameter.' }]);
    const bySlug = await site.call('POST', '/venues/by-slug/no-such-venue', { body: { venue: 'X' } });
    expect([bySlug.status, bySlug.body.data.params]).toEqual([400, { slug: 'Invalid parameter.' }]);
  });

  it('de-duplicates venues on create by title (and description), not address fields: the existing id, still 201, its sent fields overwritten', async () => {
    const body = { venue: 'Twin Hall', address: '1 Main St', city: 'Springfield', zip: '62701' };
    const a = await site.call('POST', '/venues', { body });
    const b = await site.call('POST', '/venues', { body });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.id).toBe(a.body.id);
    // As real TEC 6.17.x does (test/contract/inline-linked.test.ts): another zip is the same venue.
    const c = await site.call('POST', '/venues', { body: { ...body, zip: '99999' } });
    expect(c.body).toMatchObject({ id: a.body.id, zip: '99999', city: 'Springfield' });
    const d = await site.call('POST', '/venues', { body: { ...body, description: 'Elsewhere' } });
    expect(d.body.id).not.toBe(a.body.id);
    expect(d.body.slug).toBe('twin-hall-2');
  });

  it('keeps omitted fields on update, but status → publish and show_map → true', async () => {
    const v = await site.call('POST', '/venues', { body: { venue: 'Edit Hall', address: '5 Road', city: 'Ogdenville', status: 'draft', show_map: 'false' } });
    const u = await site.call('PATCH', `/venues/${v.body.id}`, { body: { phone: '555-0199' } });
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({ venue: 'Edit Hall', address: '5 Road', city: 'Ogdenville', phone: '555-0199', status: 'publish', show_map: true });
    const bySlug = await site.call('POST', `/venues/by-slug/${u.body.slug}`, { body: { city: 'North Haverbrook' } });
    expect(bySlug.body).toMatchObject({ id: v.body.id, address: '5 Road', city: 'North Haverbrook' });
  });

  it('trashes venues: __trashed slug, 410 on a second delete, 403 anonymously', async () => {
    const v = await site.call('POST', '/venues', { body: { venue: 'Gone Hall' } });
    const d = await site.call('DELETE', `/venues/${v.body.id}`);
    expect([d.status, d.body.status, d.body.slug]).toEqual([200, 'trash', 'gone-hall__trashed']);
    const again = await site.call('DELETE', `/venues/${v.body.id}`);
    expect([again.status, again.body.code]).toEqual([410, 'venue-is-in-trash']);
    expect((await site.call('DELETE', '/venues/by-slug/gone-hall')).status).toBe(400);
    expect((await site.call('GET', `/venues/${v.body.id}`)).body.status).toBe('trash');
    const anon = await site.call('GET', `/venues/${v.body.id}`, { auth: false });
    expect([anon.status, anon.body.code]).toEqual([403, 'venue-not-accessible']);
  });

  it('lists newest first, counts search matches, filters by event and has_events', async () => {
    const e = await site.event({ title: 'Linked', venue: { venue: 'Busy Hall', city: 'Capital City' } });
    const byEvent = await site.call('GET', `/venues?event=${e.id}`);
    expect(byEvent.body.venues.map((v: any) => v.venue)).toEqual(['Busy Hall']);
    const withEvents = await site.call('GET', '/venues?has_events=true');
    expect(withEvents.body.venues.map((v: any) => v.venue)).toEqual(['Busy Hall']);
    const search = await site.call('GET', '/venues?search=city%20capital');
    expect([search.body.total, search.body.venues[0].venue]).toEqual([1, 'Busy Hall']);
    const all = await site.call('GET', '/venues?per_page=50');
    const listed = all.body.venues.map((v: any) => v.id);
    expect(listed).toEqual([...listed].sort((a: number, b: number) => b - a));
    expect(all.headers['x-tec-total']).toBe(String(all.body.total));
    expect((await site.call('GET', '/venues?page=9')).body.code).toBe('venue-archive-page-not-found');
    expect((await site.call('GET', '/venues?event=999999')).status).toBe(400);
  });
});

describe('organizers', () => {
  it('de-duplicates identical organizers and requires the name', async () => {
    const body = { organizer: 'Arts Council', email: 'info@example.org' };
    const a = await site.call('POST', '/organizers', { body });
    const b = await site.call('POST', '/organizers', { body });
    expect([a.status, b.status, b.body.id]).toEqual([201, 201, a.body.id]);
    expect(a.body).toMatchObject({ organizer: 'Arts Council', email: 'info@example.org', slug: 'arts-council' });
    expect(a.body).not.toHaveProperty('phone');
    const missing = await site.call('POST', '/organizers', { body: { email: 'x@example.org' } });
    expect(missing.body).toEqual({ code: 'rest_missing_callback_param', message: 'Missing parameter(s): organizer', data: { status: 400, params: ['organizer'] } });
    expect((await site.call('GET', '/organizers/by-slug/no-such-org')).status).toBe(400);
    const u = await site.call('PUT', `/organizers/${a.body.id}`, { body: { phone: '555-0100' } });
    expect(u.body).toMatchObject({ email: 'info@example.org', phone: '555-0100' });
  });
});

describe('categories and tags', () => {
  it('creates terms (201), refuses duplicates with term_exists, and reads them back', async () => {
    const c = await site.call('POST', '/categories', { body: { name: 'Standalone Cat', description: 'd' } });
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({ count: 0, description: 'd', name: 'Standalone Cat', slug: 'standalone-cat', taxonomy: 'tribe_events_cat', parent: 0, meta: [] });
    expect(c.body.url).toBe(`${site.sb.origin}/events/category/standalone-cat/`);
    const dup = await site.call('POST', '/categories', { body: { name: 'Standalone Cat' } });
    expect(dup.status).toBe(400);
    expect(dup.body).toMatchObject({ code: 'term_exists', data: { status: 400, term_id: c.body.id } });
    const missing = await site.call('POST', '/categories', { body: { description: 'no name' } });
    expect(missing.body.data.params).toEqual(['name']);
    expect((await site.call('GET', `/categories/${c.body.id}`)).body.name).toBe('Standalone Cat');
    const tag = await site.call('POST', '/tags', { body: { name: 'Loose Tag' } });
    expect(tag.body).not.toHaveProperty('parent');
    expect(tag.body.url).toBe(`${site.sb.origin}/tag/loose-tag/`);
  });

  it('hides empty terms by default and counts live events only', async () => {
    const e = await site.event({ title: 'Counted', categories: ['Counted Cat'] });
    const cat = e.categories[0];
    const list = await site.call('GET', '/categories');
    expect(list.body.categories.map((c: any) => c.name)).toEqual(['Counted Cat']);
    expect(list.body.categories[0].count).toBe(1);
    expect(Object.keys(list.body)).toEqual(['rest_url', 'total', 'total_pages', 'categories']);
    const all = await site.call('GET', '/categories?hide_empty=false');
    expect(all.body.categories.map((c: any) => c.name)).toContain('Standalone Cat');
    await site.call('DELETE', `/events/${e.id}`);
    expect((await site.call('GET', `/categories/${cat.id}`)).body.count).toBe(0);
    const desc = await site.call('GET', '/categories?hide_empty=0&order=desc&orderby=name');
    const names = desc.body.categories.map((c: any) => c.name);
    expect(names).toEqual([...names].sort().reverse());
    expect((await site.call('GET', '/categories?hide_empty=0&page=9')).body.categories).toEqual([]);
  });

  it('deletes terms for good and then refuses their id', async () => {
    const t = await site.call('POST', '/tags', { body: { name: 'Ephemeral' } });
    const d = await site.call('DELETE', `/tags/${t.body.id}`);
    expect([d.status, d.body.name]).toEqual([200, 'Ephemeral']);
    const gone = await site.call('GET', `/tags/${t.body.id}`);
    expect([gone.status, gone.body.data.params]).toEqual([400, { id: 'Invalid parameter.' }]);
    expect((await site.call('DELETE', `/tags/${t.body.id}`, { auth: false })).status).toBe(400);
  });

  it('updates terms keeping omitted fields', async () => {
    const c = await site.call('POST', '/categories', { body: { name: 'Renamable', description: 'keep me' } });
    const u = await site.call('POST', `/categories/${c.body.id}`, { body: { name: 'Renamed' } });
    expect(u.body).toMatchObject({ name: 'Renamed', description: 'keep me', slug: 'renamable' });
  });
});
