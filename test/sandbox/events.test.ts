import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSite, type TestSite } from './helpers.ts';

let site: TestSite;
let old: TestSite;
beforeAll(async () => {
  site = await openSite();
  old = await openSite({ version: '6.17.1' });
});
afterAll(async () => {
  await site.sb.close();
  await old.sb.close();
});

describe('create', () => {
  it('answers 201 with the full event object in the live shape', async () => {
    const r = await site.call('POST', '/events', { body: { title: 'Peer Test Event', start_date: '2027-03-10 18:00:00', end_date: '2027-03-10 20:00:00' } });
    expect(r.status).toBe(201);
    const e = r.body;
    expect(e.author).toBe('1');
    expect(e.status).toBe('publish');
    expect(e.slug).toBe('peer-test-event');
    expect(e.url).toBe(`${site.sb.origin}/event/peer-test-event/`);
    expect(e.rest_url).toBe(`${site.base}/events/${e.id}`);
    expect(e.global_id).toBe(`127.0.0.1?id=${e.id}`);
    expect(e.image).toBe(false);
    expect(e.venue).toEqual([]);
    expect(e.organizer).toEqual([]);
    expect(e.categories).toEqual([]);
    expect(e.custom_fields).toEqual([]);
    expect(e.website).toBe(e.url); // never set: falls back to the permalink
    expect(e.timezone).toBe('UTC+0');
    expect(e.timezone_abbr).toBe('UTC+0');
    expect(e.start_date_details).toEqual({ year: '2027', month: '03', day: '10', hour: '18', minutes: '00', seconds: '00' });
    expect(e.utc_end_date).toBe('2027-03-10 20:00:00');
    expect(e.date).toBe('2026-11-22 01:44:40');
    expect(e.cost_details).toEqual({ currency_symbol: '', currency_code: '', currency_position: '', values: [] });
    expect(e).not.toHaveProperty('json_ld');
    const single = await site.call('GET', `/events/${e.id}`, { auth: false });
    expect(single.body.json_ld).toMatchObject({ '@type': 'Event', startDate: '2027-03-10T18:00:00+00:00' });
  });

  it('lists missing required fields as an ARRAY, before checking credentials', async () => {
    const r = await site.call('POST', '/events', { body: {}, auth: false });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      code: 'rest_missing_callback_param',
      message: 'Missing parameter(s): title, start_date, end_date',
      data: { status: 400, params: ['title', 'start_date', 'end_date'] },
    });
  });

  it('refuses invalid fields with params as an OBJECT, before checking credentials', async () => {
    const r = await site.call('POST', '/events', { body: { title: 'x', start_date: 'not a date', end_date: '2027-03-10 20:00:00' }, auth: false });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      code: 'rest_invalid_param', message: 'Invalid parameter(s): start_date',
      data: { status: 400, params: { start_date: 'Invalid parameter.' }, details: [] },
    });
    const empty = await site.call('POST', '/events', { body: { title: '', start_date: '2027-03-10', end_date: '2027-03-10' } });
    expect(empty.body.data.params).toEqual({ title: 'Invalid parameter.' });
  });

  it('needs credentials and refuses a wrong application password', async () => {
    const body = { title: 'Anon', start_date: '2027-03-10 18:00:00', end_date: '2027-03-10 20:00:00' };
    const anon = await site.call('POST', '/events', { body, auth: false });
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual({ code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 401 } });
    const wrong = await site.call('POST', '/events', { body, auth: `Basic ${Buffer.from('admin:wrong').toString('base64')}` });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('incorrect_password');
    const token = await openSite({ token: 'tok-123' });
    try {
      expect((await token.call('POST', '/events', { body, auth: 'Bearer tok-123' })).status).toBe(201);
      expect((await token.call('POST', '/events', { body, auth: 'Bearer nope' })).status).toBe(401);
    } finally {
      await token.sb.close();
    }
  });

  it('keeps the wall clock of ISO dates and drops their offsets', async () => {
    const z = await site.event({ title: 'Iso Z', start_date: '2027-10-01T10:00:00Z', end_date: '2027-10-01T11:00:00+02:00' });
    expect(z.start_date).toBe('2027-10-01 10:00:00');
    expect(z.end_date).toBe('2027-10-01 11:00:00');
    const ny = await site.event({ title: 'NY', start_date: '2027-05-01 10:00:00', end_date: '2027-05-01 12:30:00', timezone: 'America/New_York' });
    expect(ny.utc_start_date).toBe('2027-05-01 14:00:00');
    expect(ny.timezone).toBe('America/New_York');
    expect(ny.timezone_abbr).toBe('EDT');
    const berlin = await site.event({ title: 'Berlin', start_date: '2027-01-15 10:00:00', end_date: '2027-01-15 11:00:00', timezone: 'Europe/Berlin' });
    expect(berlin.utc_start_date).toBe('2027-01-15 09:00:00');
    expect(berlin.timezone_abbr).toBe('CET');
  });

  it('stores end = start when the end is before the start, and never lists that event', async () => {
    const e = await site.event({ title: 'Backwards', start_date: '2027-04-10 20:00:00', end_date: '2027-04-10 18:00:00' });
    expect(e.end_date).toBe('2027-04-10 20:00:00');
    expect(e.utc_end_date).toBe('2027-04-10 18:00:00');
    const list = await site.call('GET', '/events?start_date=2027-04-10&end_date=2027-04-10');
    expect(list.body.events.map((x: any) => x.id)).not.toContain(e.id);
    expect((await site.call('GET', `/events/${e.id}`)).status).toBe(200);
  });

  it('makes all-day events whole days and taken slugs unique', async () => {
    const a = await site.event({ title: 'All Day', start_date: '2027-06-01 14:00', end_date: '2027-06-02', all_day: true });
    expect([a.all_day, a.start_date, a.end_date]).toEqual([true, '2027-06-01 00:00:00', '2027-06-02 23:59:59']);
    const b = await site.event({ title: 'Another', slug: 'all-day' });
    expect(b.slug).toBe('all-day-2');
  });

  it('formats the cost and resolves terms, venues and organizers', async () => {
    const e = await site.event({
      title: 'Full', cost: '15', website: 'https://example.org/e', featured: true,
      categories: ['Peer Category', 999999], tags: ['fresh-tag'],
      venue: { venue: 'Peer Hall', address: '1 Main St', city: 'Springfield', state: 'IL' },
      organizer: [{ organizer: 'Peer Org', email: 'org@example.org', phone: '555-0100' }],
    });
    expect(e.cost).toBe('$15');
    expect(e.cost_details.values).toEqual(['15']);
    expect(e.categories.map((c: any) => c.name)).toEqual(['Peer Category']);
    expect(e.categories[0]).toMatchObject({ taxonomy: 'tribe_events_cat', count: 1, filter: 'raw', term_taxonomy_id: e.categories[0].id });
    expect(e.tags[0]).toMatchObject({ name: 'fresh-tag', taxonomy: 'post_tag' });
    expect(e.venue).toMatchObject({ venue: 'Peer Hall', stateprovince: 'IL', show_map: true });
    expect(e.venue).not.toHaveProperty('zip'); // empty fields are left out
    expect(e.organizer).toHaveLength(1);
    expect(e.organizer[0]).toMatchObject({ organizer: 'Peer Org', email: 'org@example.org' });
    const range = await site.event({ title: 'Range', cost: '10, 20' });
    expect(range.cost).toBe('$10 – $20');
    const free = await site.event({ title: 'Free', cost: '0.00' });
    expect(free.cost).toBe('Free');
    // Exactly "0" is no cost on a real site (PHP's empty("0")): test/contract/zero-cost.test.ts.
    const zero = await site.event({ title: 'Zero', cost: '0' });
    expect([zero.cost, zero.cost_details.values]).toEqual(['', []]);
  });

  it('refuses an unknown venue id and a bare organizer object (after creating the inline venue)', async () => {
    const v = await site.call('POST', '/events', { body: { title: 'V', start_date: '2027-03-10', end_date: '2027-03-10', venue: 999999 } });
    expect(v.status).toBe(400);
    expect(v.body.data.params).toEqual({ venue: 'Invalid parameter.' });
    const o = await site.call('POST', '/events', {
      body: { title: 'O', start_date: '2027-03-10', end_date: '2027-03-10', venue: { venue: 'Orphan Hall' }, organizer: { organizer: 'Solo' } },
    });
    expect(o.status).toBe(400);
    expect(o.body).toEqual({ code: 'could-not-create-organizer', message: 'The organizer could not be created from the provided data', data: { status: 400 } });
    const venues = await site.call('GET', '/venues?per_page=50');
    expect(venues.body.venues.map((x: any) => x.venue)).toContain('Orphan Hall');
  });

  it('accepts form-encoded bodies with bracketed arrays', async () => {
    const r = await site.call('POST', '/events', {
      form: { title: 'Form Event', start_date: '2027-04-01 09:00:00', end_date: '2027-04-01 10:00:00', 'categories[]': 'Form Cat', featured: '1' },
    });
    expect(r.status).toBe(201);
    expect(r.body.featured).toBe(true);
    expect(r.body.categories[0].name).toBe('Form Cat');
  });
});

describe('update', () => {
  it('resets every omitted field the way live sites do (PATCH included) and keeps the rest', async () => {
    const org = await site.call('POST', '/organizers', { body: { organizer: 'Keeper Org' } });
    const full = await site.event({
      title: 'Rich', description: 'Long text', excerpt: 'Short', status: 'draft', slug: 'rich-event', timezone: 'Europe/Paris',
      all_day: false, cost: '25', website: 'https://example.org/rich', featured: true, sticky: true, show_map: true,
      show_map_link: true, hide_from_listings: true, categories: ['Kept Cat'], tags: ['kept-tag'],
      venue: { venue: 'Kept Hall' }, organizer: [org.body.id], image: 'https://img.example.org/poster.png',
    });
    expect(full.image).toMatchObject({ url: 'https://img.example.org/poster.png', extension: 'png' });
    const r = await site.call('PATCH', `/events/${full.id}`, { body: { title: 'Rich (renamed)', start_date: '2027-07-01 10:00:00', end_date: '2027-07-01 11:00:00' } });
    expect(r.status).toBe(200);
    const e = r.body;
    expect(e).toMatchObject({
      status: 'publish', all_day: false, featured: false, sticky: false, show_map: false, show_map_link: false,
      hide_from_listings: false, cost: '', website: '', organizer: [], timezone: 'UTC+0', image: false,
    });
    expect(e.title).toBe('Rich (renamed)');
    expect(e.description).toBe('<p>Long text</p>');
    expect(e.excerpt).toBe('<p>Short</p>');
    expect(e.slug).toBe('rich-event');
    expect(e.categories.map((c: any) => c.name)).toEqual(['Kept Cat']);
    expect(e.tags.map((c: any) => c.name)).toEqual(['kept-tag']);
    expect(e.venue.venue).toBe('Kept Hall');
    expect(e.start_date).toBe('2027-07-01 10:00:00');
    // The UTC dates follow the zone the event had (Paris, +2), not the reset one.
    expect(e.utc_start_date).toBe('2027-07-01 08:00:00');
  });

  it('bumps modified on every write', async () => {
    let now = new Date('2026-11-22T01:44:40Z');
    const s = await openSite({ now: () => now });
    try {
      const e = await s.event({ title: 'Clock' });
      now = new Date('2026-11-23T05:00:00Z');
      const u = await s.call('POST', `/events/${e.id}`, { body: { title: 'Clock 2' } });
      expect(u.body.modified).toBe('2026-11-23 05:00:00');
      expect(u.body.modified_utc).toBe('2026-11-23 05:00:00');
      expect(e.modified).toBe('2026-11-22 01:44:40');
      now = new Date('2026-11-24T06:00:00Z');
      const d = await s.call('DELETE', `/events/${e.id}`);
      expect(d.body.modified).toBe('2026-11-24 06:00:00');
    } finally {
      await s.sb.close();
    }
  });

  it('answers unknown event ids per version', async () => {
    const a = await site.call('PATCH', '/events/999999', { body: { title: 'nope' } });
    expect(a.status).toBe(404);
    expect(a.body).toEqual({ code: 'rest-event-not-found', message: 'Event with ID 999999 does not exist.', data: { status: 404 } });
    expect((await site.call('GET', '/events/999999', { auth: false })).status).toBe(404);
    expect((await site.call('DELETE', '/events/999999', { auth: false })).status).toBe(401);
    const b = await old.call('GET', '/events/999999', { auth: false });
    expect(b.status).toBe(400);
    expect(b.body.data.params).toEqual({ id: 'Invalid parameter.' });
    // 6.17.1 checks the id as an argument, so even anonymous writes get the 400.
    expect((await old.call('PATCH', '/events/999999', { body: { title: 'x' }, auth: false })).status).toBe(400);
    const venue = await site.call('POST', '/venues', { body: { venue: 'Not An Event' } });
    const wrong = await site.call('GET', `/events/${venue.body.id}`);
    expect([wrong.status, wrong.body.code]).toEqual([400, 'rest-invalid-event-id']);
  });
});

describe('by-slug', () => {
  it('updates an existing slug and never creates a missing one (6.17.2: 404)', async () => {
    const e = await site.event({ title: 'Slugged' });
    const ok = await site.call('POST', `/events/by-slug/${e.slug}`, { body: { title: 'Slugged (renamed)' } });
    expect([ok.status, ok.body.id, ok.body.title]).toEqual([200, e.id, 'Slugged (renamed)']);
    const miss = await site.call('POST', '/events/by-slug/brand-new-slug', { body: { title: 'By Slug', start_date: '2027-08-01 10:00:00', end_date: '2027-08-01 11:00:00' } });
    expect(miss.status).toBe(404);
    expect(miss.body).toEqual({ code: 'rest-event-not-found', message: 'Event with ID 0 does not exist.', data: { status: 404 } });
    const anon = await site.call('POST', '/events/by-slug/brand-new-slug', { body: { title: 'x' }, auth: false });
    expect([anon.status, anon.body.code]).toEqual([401, 'rest_forbidden']);
    const after = await site.call('GET', '/events/by-slug/brand-new-slug');
    expect(after.status).toBe(400);
    expect(after.body.data.params).toEqual({ slug: 'Invalid parameter.' });
    const search = await site.call('GET', '/events?search=By%20Slug&start_date=2020-01-01');
    expect(search.body.total).toBe(0);
  });

  it('6.17.1 answers a by-slug update miss with 200 and a serialized WP_Error', async () => {
    const miss = await old.call('PUT', '/events/by-slug/brand-new-slug', { body: { title: 'x', start_date: '2027-08-01', end_date: '2027-08-01' } });
    expect(miss.status).toBe(200);
    expect(miss.body).toEqual({ errors: { 'event-not-found': ['The requested post ID does not exist or is not an event'] }, error_data: [] });
    expect((await old.call('GET', '/events/by-slug/brand-new-slug')).status).toBe(400);
    expect((await old.call('GET', '/events?start_date=2000-01-01&end_date=2100-01-01')).body.total).toBe(0);
  });

  it('answers GET and DELETE of a missing slug with 400 params.slug', async () => {
    for (const m of ['GET', 'DELETE']) {
      const r = await site.call(m, '/events/by-slug/no-such-event');
      expect(r.status).toBe(400);
      expect(r.body.data.params).toEqual({ slug: 'Invalid parameter.' });
    }
  });
});

describe('visibility and trash', () => {
  it('moves deleted events to the trash, then answers 410, and hides them from by-slug', async () => {
    const e = await site.event({ title: 'Doomed' });
    const d = await site.call('DELETE', `/events/${e.id}`);
    expect(d.status).toBe(200);
    expect(d.body.status).toBe('trash');
    expect(d.body.slug).toBe('doomed__trashed');
    expect(d.body.url).toBe(`${site.sb.origin}/?post_type=tribe_events&p=${e.id}`);
    const again = await site.call('DELETE', `/events/${e.id}`);
    expect(again.status).toBe(410);
    expect(again.body).toEqual({ code: 'event-is-in-trash', message: 'The event is already trashed', data: { status: 410 } });
    expect((await site.call('GET', '/events/by-slug/doomed')).status).toBe(400);
    const authed = await site.call('GET', `/events/${e.id}`);
    expect([authed.status, authed.body.code]).toEqual([403, 'event-no-longer-available']);
    expect((await site.call('GET', `/events/${e.id}`, { auth: false })).status).toBe(403);
    // The old slug is free again.
    expect((await site.event({ title: 'Doomed' })).slug).toBe('doomed');
  });

  it('6.17.1 lets credentials read a trashed event', async () => {
    const e = await old.event({ title: 'Old Trash' });
    await old.call('DELETE', `/events/${e.id}`);
    expect((await old.call('GET', `/events/${e.id}`)).status).toBe(200);
    const anon = await old.call('GET', `/events/${e.id}`, { auth: false });
    expect([anon.status, anon.body.code]).toEqual([403, 'event-not-accessible']);
  });

  it('hides drafts from anonymous readers', async () => {
    const e = await site.event({ title: 'Draft', status: 'draft' });
    expect(e.slug).toBe('');
    expect(e.date_utc).toBe('0000-00-00 00:00:00');
    const r = await site.call('GET', `/events/${e.id}`, { auth: false });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ code: 'event-not-accessible', message: 'The requested event is not accessible', data: { status: 403 } });
    expect((await site.call('GET', `/events/${e.id}`)).status).toBe(200);
  });
});
